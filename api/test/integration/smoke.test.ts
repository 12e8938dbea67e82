import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, people, type TestApp } from '../helpers/app.ts';
import { buildDevice, buildTask } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('smoke', () => {
  it('signs up, adds a device and a task, and reads them back', async () => {
    const { operator, va } = await people(t.app);
    const device = await buildDevice(operator, { assignedToId: va.user!.id });
    const task = await buildTask(operator, { deviceId: device.id });
    expect(task.assignedToId).toBe(va.user!.id);
    const list = await va.get('/api/tasks');
    expect(list.status).toBe(200);
    expect(list.body.map((row: { id: string }) => row.id)).toContain(task.id);
  });
});
