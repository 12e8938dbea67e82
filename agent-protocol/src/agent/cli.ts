#!/usr/bin/env -S node --import tsx
/**
 * farm-agent: the phone agent. `host` runs a farm host (every phone on the PC's USB, or simulated ones); `enroll`
 * exchanges a device's one-time code; `run` runs that device's agent; `sim` runs simulated phones for demos and load.
 */
import { parseArgs } from 'node:util';
import { createAdbClient } from '../adb/adb.host.ts';
import { AdbPhone } from '../adb/adb.phone.ts';
import { scrcpyServerOnce } from '../adb/adb.scrcpy.ts';
import type { PhoneDevice } from '../phone/phone.device.ts';
import { enroll } from '../enroll.ts';
import { SimulatedPhoneUi } from '../simphone/simphone.device.ts';
import { MediaFetcher } from './media.ts';
import { DeviceBackend } from './device-backend.ts';
import { AGENT_VERSION, FarmHost } from '../host/host.ts';
import { simulateLife } from '../host/host.sim.ts';
import { Journal } from './journal.ts';
import { PhoneAgent } from './phone-agent.ts';
import { SimulatedPhone } from './simulator.ts';
import { AgentState, defaultStateDir } from './state.ts';

const HELP = `farm-agent <command> [options]

Commands:
  host     Run a farm host: every phone adb sees on this PC (or --backend sim simulated ones) joins the console.
           First time: --server URL --code CODE (the host code from Settings → Phone hosts → Add host).
           Options: --backend adb|sim  --devices N (sim)  --adb-host HOST  --adb-port PORT  --screenshot MS
                    --scrcpy-server PATH (or SCRCPY_SERVER; default: the scrcpy-server v3.3.1 installed with farm-agent; both checked)
                    --no-h264 (live screens as JPEG frames only; the console is not offered H.264)
  enroll   Exchange a device's one-time code (its menu → Connect phone) for its credential, kept in the state folder.
           --server URL --code CODE [--serial S] [--model M]
  run      Run the enrolled device's agent: a simulated phone, or with --serial S the phone of that serial over adb.
  sim      Simulated phones: --server URL --token T[,T…] (or FARM_AGENT_TOKENS) | --code C[,C…]
           Options: --quick (fast fake work, for load), --screenshot MS, --work MS, --failure-rate R

Common options:
  --state DIR   where credentials and journals are kept (default ${defaultStateDir()}, owner-only)
  --help        this text
`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    server: { type: 'string' },
    code: { type: 'string' },
    token: { type: 'string' },
    state: { type: 'string' },
    backend: { type: 'string', default: 'adb' },
    devices: { type: 'string', default: '5' },
    'adb-host': { type: 'string' },
    'adb-port': { type: 'string' },
    serial: { type: 'string' },
    model: { type: 'string' },
    screenshot: { type: 'string', default: '15000' },
    quick: { type: 'boolean', default: false },
    work: { type: 'string', default: '4000' },
    'failure-rate': { type: 'string', default: '0.05' },
    'scrcpy-server': { type: 'string' },
    'no-h264': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
const fail = (message: string): never => {
  console.error(`farm-agent: ${message}`);
  process.exit(2);
};
const command = positionals[0];
if (values.help || !command) {
  console.log(HELP);
  process.exit(values.help ? 0 : 2);
}
const state = new AgentState(values.state ?? defaultStateDir());
/** The scrcpy-server file named for this host (undefined: the installed one), or false for JPEG only (`h264` not offered). */
function scrcpyServerPath(): string | undefined | false {
  if (values['no-h264']) return false;
  return values['scrcpy-server'] ?? (process.env.SCRCPY_SERVER || undefined);
}
const closers: (() => unknown)[] = [];
// Started by the console for its demo farm: it ends with the console, even one killed hard.
if (process.env.FARM_AGENT_EXIT_WITH_PARENT === '1') {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void Promise.all(closers.map((close) => close())).finally(() => process.exit(0));
  }, 2000).unref();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void Promise.all(closers.map((close) => close())).finally(() => process.exit(0));
  });
}

switch (command) {
  case 'host': {
    if (values.backend !== 'adb' && values.backend !== 'sim') fail('--backend is adb or sim');
    let saved = state.credential('host');
    if (values.code) {
      if (!values.server) fail('--server is needed with --code');
      const answer = await enroll(values.server!, { code: values.code }).catch((error: unknown) =>
        fail(error instanceof Error ? error.message : String(error)),
      );
      if (!('hostId' in answer)) fail('That code is a device code; use "farm-agent enroll" for one phone, or a host code from Settings → Phone hosts');
      saved = { server: values.server!, token: answer.token, hostId: (answer as { hostId: string }).hostId };
      state.saveCredential('host', saved);
      log(`enrolled as host ${saved.hostId}`);
    }
    if (!saved) fail('this host is not enrolled yet: pass --server URL --code CODE');
    const host = new FarmHost({
      server: values.server ?? saved!.server,
      token: saved!.token,
      state,
      backend: values.backend as 'adb' | 'sim',
      devices: Number(values.devices),
      ...(values['adb-host'] ? { adbHost: values['adb-host'] } : {}),
      ...(values['adb-port'] ? { adbPort: Number(values['adb-port']) } : {}),
      scrcpyServer: scrcpyServerPath(),
      screenshotMs: Number(values.screenshot),
      log,
      onRefused: (reason) => {
        console.error(`farm-agent: ${reason}`);
        void host.close().finally(() => process.exit(3));
      },
    });
    closers.push(() => host.close());
    await host.start();
    break;
  }
  case 'enroll': {
    if (!values.server || !values.code) fail('enroll needs --server URL --code CODE');
    const answer = await enroll(values.server!, {
      code: values.code!,
      ...(values.serial ? { serial: values.serial } : {}),
      ...(values.model ? { model: values.model } : {}),
    }).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
    if (!('deviceId' in answer)) fail('That code is a host code; use "farm-agent host --code …"');
    state.saveCredential('device', { server: values.server!, token: answer.token, deviceId: (answer as { deviceId: string }).deviceId });
    log(`enrolled as device ${(answer as { deviceId: string }).deviceId}; run it with "farm-agent run"`);
    process.exit(0);
    break;
  }
  case 'run': {
    const saved = state.credential('device');
    if (!saved?.deviceId) fail('no device is enrolled in this state folder: run "farm-agent enroll --server URL --code CODE" first');
    let phone: PhoneDevice;
    if (values.serial) {
      const client = createAdbClient({
        ...(values['adb-host'] ? { adbHost: values['adb-host'] } : {}),
        ...(values['adb-port'] ? { adbPort: Number(values['adb-port']) } : {}),
      });
      const scrcpy = scrcpyServerPath();
      phone = new AdbPhone(values.serial, client.getDevice(values.serial), {
        mediaRoot: state.mediaDir,
        ...(scrcpy === false ? {} : { scrcpyServer: scrcpyServerOnce({ path: scrcpy }) }),
      });
    } else {
      const ui = new SimulatedPhoneUi({ serial: `SIM-${saved!.deviceId!.slice(0, 8)}` });
      closers.push(simulateLife(ui));
      phone = ui;
    }
    const shown = phone instanceof SimulatedPhoneUi ? phone : undefined;
    const media = new MediaFetcher({ server: saved!.server, credential: { token: saved!.token }, dir: state.mediaDir });
    const backend = await new DeviceBackend(phone, {
      agentVersion: AGENT_VERSION,
      media,
      // A simulated phone holds no account of its own: every other check before a run applies.
      ...(shown ? { onStep: (label: string) => (shown.caption = label), preflight: 'no-account' as const } : {}),
    }).start();
    const agent = new PhoneAgent({
      url: saved!.server,
      token: saved!.token,
      backend,
      journal: new Journal(state.journalPath(saved!.deviceId!)),
      screenshotMs: Number(values.screenshot),
      log,
    });
    closers.push(
      () => agent.close(),
      () => backend.close(),
    );
    break;
  }
  case 'sim': {
    if (!values.server) fail('sim needs --server URL');
    const tokens = (values.token ?? process.env.FARM_AGENT_TOKENS ?? '')
      .split(',')
      .map((token) => token.trim())
      .filter(Boolean);
    for (const code of (values.code ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean)) {
      const answer = await enroll(values.server!, { code }).catch((error: unknown) =>
        fail(`${code}: ${error instanceof Error ? error.message : String(error)}`),
      );
      if ('token' in answer) tokens.push(answer.token);
    }
    if (tokens.length === 0) fail('sim needs --token T[,T…] (or FARM_AGENT_TOKENS) or --code C[,C…]');
    for (const [index, token] of tokens.entries()) {
      const journal = new Journal(state.journalPath(`sim-${token.slice(-10)}`));
      const tag = (line: string) => log(`phone ${index + 1}: ${line}`);
      if (values.quick) {
        const phone = new SimulatedPhone({
          url: values.server!,
          token,
          journal,
          screenshotMs: Number(values.screenshot),
          workMs: Number(values.work),
          failureRate: Number(values['failure-rate']),
          log: tag,
        });
        closers.push(() => phone.close());
        continue;
      }
      const ui = new SimulatedPhoneUi({ serial: `SIM-${String(index + 1).padStart(4, '0')}`, battery: 40 + Math.floor(Math.random() * 60) });
      closers.push(simulateLife(ui));
      const media = new MediaFetcher({ server: values.server!, credential: { token }, dir: state.mediaDir });
      const backend = await new DeviceBackend(ui, {
        agentVersion: AGENT_VERSION,
        media,
        onStep: (label) => (ui.caption = label),
        preflight: 'no-account',
      }).start();
      const agent = new PhoneAgent({ url: values.server!, token, backend, journal, screenshotMs: Number(values.screenshot), log: tag });
      closers.push(
        () => agent.close(),
        () => backend.close(),
      );
    }
    log(`${tokens.length} simulated phone${tokens.length === 1 ? '' : 's'} connecting to ${values.server}`);
    break;
  }
  default:
    console.error(`farm-agent: unknown command "${command}"\n`);
    console.log(HELP);
    process.exit(2);
}
