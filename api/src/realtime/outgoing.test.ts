import { describe, expect, it } from 'vitest';
import { BATCH_EVENT, eachServerEvent } from '@farm/contracts';
import { MAX_BATCH, Outgoing } from './outgoing.ts';

interface Sent {
  local: boolean;
  room: string;
  event: string;
  payload: unknown;
}

function outgoing() {
  const sent: Sent[] = [];
  const out = new Outgoing((local, room, event, payload) => sent.push({ local, room, event, payload }));
  /** What each room heard, unpacked, in order. */
  const heard = (room: string) => {
    const events: [string, unknown][] = [];
    for (const message of sent.filter((one) => one.room === room))
      eachServerEvent(message.event, message.payload, (event, payload) => events.push([event, payload]));
    return events;
  };
  return { out, sent, heard };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Outgoing', () => {
  it('sends an event alone as itself, at the end of the turn', async () => {
    const { out, sent } = outgoing();
    out.send(false, 'workspace:w', 'task.updated', { id: 't1' });
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toEqual([{ local: false, room: 'workspace:w', event: 'task.updated', payload: { id: 't1' } }]);
  });

  it('sends a turn’s events for one room as one batch, in order, with their copies for the wall', async () => {
    const { out, sent, heard } = outgoing();
    out.send(false, 'workspace:w', 'task.updated', { id: 't1' });
    out.send(false, 'workspace:w', 'device.updated', { id: 'd1' }, 'wall:w');
    out.send(false, 'workspace:w', 'activity.created', { id: 'a1' });
    await turn();
    expect(sent.map((one) => [one.room, one.event])).toEqual([
      ['workspace:w', BATCH_EVENT],
      ['wall:w', 'device.updated'],
    ]);
    expect(heard('workspace:w')).toEqual([
      ['task.updated', { id: 't1' }],
      ['device.updated', { id: 'd1' }],
      ['activity.created', { id: 'a1' }],
    ]);
    expect(heard('wall:w')).toEqual([['device.updated', { id: 'd1' }]]);
  });

  it('keeps the order across rooms: a run ends where another room’s event comes between', async () => {
    const { out, sent } = outgoing();
    out.send(false, 'workspace:w', 'task.updated', { id: 't1', step: 1 });
    out.send(false, 'user:u', 'task.assigned', { id: 't1', step: 2 });
    out.send(false, 'workspace:w', 'task.updated', { id: 't1', step: 3 });
    out.send(true, 'workspace:w', 'task.updated', { id: 't2' });
    await turn();
    expect(sent.map((one) => [one.local, one.room, one.event, (one.payload as { step?: number }).step])).toEqual([
      [false, 'workspace:w', 'task.updated', 1],
      [false, 'user:u', 'task.assigned', 2],
      [false, 'workspace:w', 'task.updated', 3],
      [true, 'workspace:w', 'task.updated', undefined],
    ]);
  });

  it('cuts a long run into batches of at most MAX_BATCH, and sends what is queued when flushed at close', () => {
    const { out, sent, heard } = outgoing();
    for (let i = 0; i < MAX_BATCH * 2 + 1; i++) out.send(false, 'workspace:w', 'task.updated', { id: `t${i}` });
    out.flush();
    expect(sent.map((one) => (one.event === BATCH_EVENT ? (one.payload as { changes: unknown[] }).changes.length : 1))).toEqual([MAX_BATCH, MAX_BATCH, 1]);
    expect(heard('workspace:w').map(([, payload]) => (payload as { id: string }).id)).toEqual(Array.from({ length: MAX_BATCH * 2 + 1 }, (_, i) => `t${i}`));
  });
});
