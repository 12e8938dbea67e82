/**
 * The lists PostgreSQL writes as JSON text answer exactly, byte for byte, what the contract's encoding of the same rows
 * gives: every field, in order, with nulls, numbers, booleans and times to the millisecond as `toISOString()` writes
 * them (microseconds included in the database), and the same next-page cursor.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { activity, device, NEXT_CURSOR_HEADER, task } from '@farm/contracts';
import { encodeCursor } from '../../src/shared/paging.ts';
import { serialize } from '../../src/shared/serialize.ts';
import { buildTestApp, people, type Client, type TestApp } from '../helpers/app.ts';
import { buildDevice, buildTask } from '../helpers/factories.ts';

let t: TestApp;
let operator: Client;
let va: Client;
beforeAll(async () => {
  t = await buildTestApp({ readCacheMs: 0 });
  ({ operator, va } = await people(t.app));
});
afterAll(async () => {
  await t?.close();
});

/** Times with microseconds, as now() writes them, including ones whose milliseconds end in 9s. */
const odd = (index: number) => sql<Date>`timestamptz '2026-03-04 05:06:07.123999+00' + make_interval(secs => ${index * 1.000999})`;

describe('lists written by the database', () => {
  it('answers GET /api/devices as the contract encodes the same rows', async () => {
    const workspaceId = operator.user!.workspaceId!;
    for (let index = 0; index < 7; index += 1) await buildDevice(operator, { name: `Pixel json ${index}` });
    const rows = await t.db.selectFrom('devices').select('id').where('workspaceId', '=', workspaceId).orderBy('createdAt').execute();
    // Every kind of value: set and unset, on alternate phones.
    for (const [index, row] of rows.entries()) {
      await t.db
        .updateTable('devices')
        .set({
          status: index % 2 ? 'busy' : 'offline',
          battery: index * 13,
          lastActive: odd(index),
          lastSeenAt: index % 2 ? odd(index + 1) : null,
          agentProtocol: index % 2 ? 2 : null,
          serial: index % 2 ? `R58N${index}` : null,
          model: index % 3 ? 'Pixel 8 "Pro"' : null,
          androidVersion: index % 2 ? '14' : null,
          screenOn: index % 3 === 0 ? null : index % 3 === 1,
          assignedToId: index % 2 ? va.user!.id : null,
          controlledById: index === 3 ? operator.user!.id : null,
          controlledByName: index === 3 ? 'Olga \u201cOps\u201d \\ Operator' : null,
          sessionTime: index * 61,
          createdAt: odd(index * 10),
          updatedAt: odd(index * 20),
        })
        .where('id', '=', row.id)
        .execute();
    }
    const answer = await t.app.inject({ method: 'GET', url: '/api/devices?limit=5', headers: { cookie: `sid=${operator.cookie}` } });
    expect(answer.statusCode).toBe(200);
    const expected = await t.db.selectFrom('devices').selectAll().where('workspaceId', '=', workspaceId).orderBy('createdAt').orderBy('id').limit(5).execute();
    expect(answer.body).toBe(JSON.stringify(z.encode(z.array(device), expected.map(serialize))));
    expect(answer.headers[NEXT_CURSOR_HEADER]).toBe(encodeCursor(expected[4]!.createdAt, expected[4]!.id));
    const rest = await t.app.inject({
      method: 'GET',
      url: `/api/devices?limit=5&cursor=${answer.headers[NEXT_CURSOR_HEADER]}`,
      headers: { cookie: `sid=${operator.cookie}` },
    });
    expect(JSON.parse(rest.body)).toHaveLength(2);
    expect(rest.headers[NEXT_CURSOR_HEADER]).toBeUndefined();
    // A phone just added, never changed since, and one changed by a heartbeat's statement.
    const fresh = await buildDevice(operator, { name: 'Pixel json fresh' });
    await sql`update devices set battery = 3, last_seen_at = now() where id = ${rows[0]!.id}`.execute(t.db);
    const all = await t.app.inject({ method: 'GET', url: '/api/devices', headers: { cookie: `sid=${operator.cookie}` } });
    const everyRow = await t.db.selectFrom('devices').selectAll().where('workspaceId', '=', workspaceId).orderBy('createdAt').orderBy('id').execute();
    expect(everyRow.map((row) => row.id)).toContain(fresh.id);
    expect(all.body).toBe(JSON.stringify(z.encode(z.array(device), everyRow.map(serialize))));
  });

  it('answers GET /api/tasks as the contract encodes the same rows', async () => {
    const workspaceId = operator.user!.workspaceId!;
    const phone = await buildDevice(operator, { name: 'Pixel tasks json' });
    for (let index = 0; index < 6; index += 1)
      await buildTask(operator, { title: `Task "json" ${index}\n\ttabbed`, deviceId: index % 2 ? phone.id : undefined });
    const rows = await t.db.selectFrom('tasks').select('id').where('workspaceId', '=', workspaceId).execute();
    for (const [index, row] of rows.entries()) {
      await t.db
        .updateTable('tasks')
        .set({
          status: index % 2 ? 'failed' : 'pending',
          deadline: index % 2 ? odd(index) : null,
          startedAt: index % 3 ? odd(index + 2) : null,
          completedAt: index % 2 ? odd(index + 3) : null,
          attempt: index,
          dispatchedAt: index === 0 ? odd(index + 4) : null,
          leaseExpiresAt: index === 0 ? odd(index + 5) : null,
          nextAttemptAt: index === 2 ? odd(9) : null,
          progress: index % 2 ? 40 + index : null,
          progressNote: index % 2 ? 'Step ✓ "two"' : null,
          failureCode: index % 2 ? 'rate_limited' : null,
          failureMessage: index % 2 ? 'Try again later' : null,
          createdAt: odd(index * 7),
          updatedAt: odd(index * 11),
        })
        .where('id', '=', row.id)
        .execute();
    }
    const answer = await t.app.inject({ method: 'GET', url: '/api/tasks?limit=4', headers: { cookie: `sid=${operator.cookie}` } });
    expect(answer.statusCode).toBe(200);
    const expected = await t.db
      .selectFrom('tasks')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(4)
      .execute();
    expect(answer.body).toBe(JSON.stringify(z.encode(z.array(task), expected.map(serialize))));
    expect(answer.headers[NEXT_CURSOR_HEADER]).toBe(encodeCursor(expected[3]!.createdAt, expected[3]!.id));
  });

  it('answers GET /api/activities as the contract encodes the same rows', async () => {
    const workspaceId = operator.user!.workspaceId!;
    const phone = await buildDevice(operator, { name: 'Pixel feed json' });
    await t.db
      .insertInto('activities')
      .values(
        Array.from({ length: 5 }, (_, index) => ({
          workspaceId,
          userId: index % 2 ? operator.user!.id : null,
          deviceId: index % 3 ? phone.id : null,
          action: `Said "${index}" \\ with\nbreaks`,
          type: (['success', 'warning', 'info', 'error'] as const)[index % 4]!,
          createdAt: odd(index * 3 + 100),
        })),
      )
      .execute();
    const answer = await t.app.inject({ method: 'GET', url: '/api/activities?limit=3', headers: { cookie: `sid=${operator.cookie}` } });
    const expected = await t.db
      .selectFrom('activities')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(3)
      .execute();
    expect(answer.body).toBe(JSON.stringify(z.encode(z.array(activity), expected.map(serialize))));
    expect(answer.headers[NEXT_CURSOR_HEADER]).toBe(encodeCursor(expected[2]!.createdAt, expected[2]!.id));
  });
});
