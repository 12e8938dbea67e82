/** Screenshots over the workspace's storage quota: acknowledged and dropped, a protocol 2 phone told why. */
import { afterAll, describe, expect, it } from 'vitest';
import { solidPng } from '@farm/agent-protocol';
import { configureAutomation, defaultSettings } from '@farm/workers';
import { realtimeApp } from '../helpers/realtime.ts';
import { bareAgent, enrolledPhone, helloV1, send } from './phones.ts';
import { connected } from './sockets.ts';

const { url, operator, sockets } = await realtimeApp();
afterAll(async () => {
  configureAutomation({ storageQuotaBytes: defaultSettings.storageQuotaBytes });
});

describe('screenshots over the storage quota', () => {
  it('are acknowledged and dropped, nothing stored; a protocol 2 phone is told why and when to try again', async () => {
    const png = solidPng(3, 3, [1, 2, 3]);
    const used = (await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes;
    configureAutomation({ storageQuotaBytes: used + png.length });
    const shotsOf = async (deviceId: string) => (await operator.get<unknown[]>(`/api/devices/${deviceId}/screenshots?limit=100`)).body.length;

    const modern = await enrolledPhone(operator, { name: 'Pixel full 2' });
    const v2 = bareAgent(url, modern.token);
    sockets.push(v2);
    await connected(v2);
    await send(v2, 'agent.hello', { ...helloV1, protocol: 2 });
    expect(await send(v2, 'agent.screenshot', { mime: 'image/png', data: png.toString('base64') })).toEqual({ ok: true });
    const told = await send(v2, 'agent.screenshot', { mime: 'image/png', data: png.toString('base64') });
    expect(told).toMatchObject({ ok: false, error: expect.stringMatching(/^Screenshot not stored: This workspace's storage is full/), retryAfterMs: 300_000 });
    expect(await shotsOf(modern.device.id)).toBe(1);

    const old = await enrolledPhone(operator, { name: 'Pixel full 1' });
    const v1 = bareAgent(url, old.token);
    sockets.push(v1);
    await connected(v1);
    await send(v1, 'agent.hello', helloV1);
    expect(await send(v1, 'agent.screenshot', { mime: 'image/png', data: png.toString('base64') })).toEqual({ ok: true });
    expect(await shotsOf(old.device.id)).toBe(0);
    expect((await operator.get<{ usedBytes: number }>('/api/storage')).body.usedBytes).toBe(used + png.length);
  });
});
