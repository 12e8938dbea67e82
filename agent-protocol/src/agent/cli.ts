#!/usr/bin/env -S node --import tsx
/** farm-agent: runs a simulated phone against a console. */
import { parseArgs } from 'node:util';
import { SimulatedPhone } from './simulator.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:3000' },
    token: { type: 'string' },
    heartbeat: { type: 'string', default: '5000' },
    screenshot: { type: 'string', default: '15000' },
    work: { type: 'string', default: '5000' },
    'failure-rate': { type: 'string', default: '0.1' },
  },
});
if (!values.token) {
  console.error('farm-agent: --token is required (the device credential from "Connect phone")');
  process.exit(2);
}
const phone = new SimulatedPhone({
  url: values.url,
  token: values.token,
  heartbeatMs: Number(values.heartbeat),
  screenshotMs: Number(values.screenshot),
  workMs: Number(values.work),
  failureRate: Number(values['failure-rate']),
  log: (line) => console.log(`${new Date().toISOString()} ${line}`),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (phone.close(), process.exit(0)));
