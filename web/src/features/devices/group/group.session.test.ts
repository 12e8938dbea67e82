import { groupResult } from '@farm/agent-protocol/group';
import type { LiveGroupAnswer } from '@farm/contracts';
import { describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '../../../test/fake-socket';
import { GroupSession, type GroupSessionView, type GroupSocket } from './group.session';

const group = (leaderId: string, ids: string[]): LiveGroupAnswer => ({
  leaderId,
  phones: ids.map((deviceId) => ({ deviceId, name: `Pixel ${deviceId}`, held: true, leader: deviceId === leaderId })),
});

function open(ids = ['a', 'b', 'c'], { refuseWatch = [] as string[] } = {}) {
  const socket = new FakeSocket();
  socket.answer('live.watch', (payload) => {
    const { deviceId } = payload as { deviceId: string };
    return refuseWatch.includes(deviceId) ? { ok: false, error: 'This phone is offline' } : { ok: true, streaming: true, canControl: true };
  });
  socket.answer('live.group.start', (payload) => {
    const body = payload as { deviceIds: string[]; leaderId: string };
    return { ok: true, ...group(body.leaderId, body.deviceIds) };
  });
  const views: GroupSessionView[] = [];
  const refused = vi.fn();
  const session = new GroupSession(socket as unknown as GroupSocket, {
    deviceIds: ids,
    leaderId: ids[0]!,
    h264: true,
    changed: (view) => views.push(view),
    refused,
  });
  return { socket, session, views, refused };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('group control session', () => {
  it('watches every phone first, then starts the group with those it could watch', async () => {
    const { socket, session } = open(['a', 'b', 'c'], { refuseWatch: ['c'] });
    socket.serverConnects();
    await flush();
    expect(socket.sent('live.watch')).toEqual([
      { deviceId: 'a', h264: true },
      { deviceId: 'b', h264: true },
      { deviceId: 'c', h264: true },
    ]);
    expect(socket.sent('live.group.start')).toEqual([{ deviceIds: ['a', 'b'], leaderId: 'a' }]);
    expect(socket.emitted.findIndex((entry) => entry.event === 'live.group.start')).toBe(3);
    expect(session.state.group.status).toBe('running');
    expect(session.state.watch.c).toEqual({ kind: 'refused', reason: 'This phone is offline' });
  });

  it('says why the group could not start', async () => {
    const { socket, session } = open();
    socket.answer('live.group.start', () => ({ ok: false, error: 'Group control is for operators' }));
    socket.serverConnects();
    await flush();
    expect(session.state.group.status).toBe('refused');
    expect(session.state.group.notice).toBe('Group control is for operators');
  });

  it('sends an action, merges pushed results and the answer, and retries on the ones that missed', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    socket.answer('live.group.act', () => {
      socket.push('live.group.result', { actionId: 'x1', deviceId: 'b', result: groupResult('x1', 'not_found') });
      return {
        ok: true,
        actionId: 'x1',
        summary: 'Home: Done on 2, Not found on 1',
        results: [
          { actionId: 'x1', deviceId: 'a', result: groupResult('x1', 'done') },
          { actionId: 'x1', deviceId: 'c', result: groupResult('x1', 'done') },
        ],
      };
    });
    session.act({ kind: 'key', key: 'home' });
    expect(socket.sent('live.group.act')).toEqual([{ action: { kind: 'key', key: 'home' } }]);
    expect(session.state.group.lines[0]?.summary).toBe('Home: Done on 2, Not found on 1');
    expect(session.state.group.last.b?.result.label).toBe('Not found');
    session.retry();
    expect(socket.sent('live.group.act')[1]).toEqual({ action: { kind: 'key', key: 'home' }, only: ['b'] });
  });

  it('shows the server’s refusal of an action (too many a second) and keeps the state', async () => {
    const { socket, session, refused } = open();
    socket.serverConnects();
    await flush();
    socket.answer('live.group.act', () => ({ ok: false, error: 'At most 2 actions a second: wait a moment' }));
    session.act({ kind: 'key', key: 'back' });
    expect(refused).toHaveBeenCalledWith('At most 2 actions a second: wait a moment');
    expect(session.state.group.lines).toEqual([]);
    expect(session.state.sending).toBe(false);
  });

  it('re-sends a finger the leader could not name as a tap by point', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    socket.answer('live.group.act', () => ({ ok: true, actionId: 'x1', summary: 'Tap: nothing named', results: [], offerPoint: true }));
    session.act({ kind: 'finger', x: 0.25, y: 0.5, press: 'tap' });
    expect(session.state.group.offerPoint).toEqual({ x: 0.25, y: 0.5, press: 'tap' });
    socket.answer('live.group.act', () => ({ ok: true, actionId: 'x2', summary: 'Tap by point: Done on 3', results: [] }));
    session.tapByPoint();
    expect(socket.sent('live.group.act')[1]).toEqual({ action: { kind: 'point', x: 0.25, y: 0.5, press: 'tap' } });
    expect(session.state.group.offerPoint).toBeNull();
  });

  it('changes the leader, drops a phone (no longer watched) and adds it back (watched again first)', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    socket.answer('live.group.leader', () => ({ ok: true, ...group('b', ['a', 'b', 'c']) }));
    session.makeLeader('b');
    expect(session.state.group.leaderId).toBe('b');
    socket.answer('live.group.drop', () => ({ ok: true, ...group('b', ['a', 'b']) }));
    session.drop('c');
    expect(session.state.group.dropped).toEqual([{ deviceId: 'c', name: 'Pixel c' }]);
    expect(socket.sent('live.unwatch')).toEqual([{ deviceId: 'c' }]);
    socket.answer('live.group.add', () => ({ ok: true, ...group('b', ['a', 'b', 'c']) }));
    session.add('c');
    await flush();
    const order = socket.emitted.map((entry) => entry.event).slice(-2);
    expect(order).toEqual(['live.watch', 'live.group.add']);
    expect(session.state.group.dropped).toEqual([]);
  });

  it('follows the session’s own changes and answers the idle prompt for every phone named', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    socket.push('live.group.state', { ...group('a', ['a', 'b']), reason: 'Pixel c went offline.' });
    expect(session.state.group.notice).toBe('Pixel c went offline.');
    socket.push('live.idle', { deviceId: 'a', deviceName: 'Pixel a', releaseInMs: 30_000 });
    socket.push('live.idle', { deviceId: 'b', deviceName: 'Pixel b', releaseInMs: 30_000 });
    expect(session.state.idle?.deviceIds).toEqual(['a', 'b']);
    session.keep();
    expect(socket.sent('live.keep')).toEqual([{ deviceId: 'a' }, { deviceId: 'b' }]);
    socket.push('live.released', { deviceId: 'b', reason: 'Taken over by Ola' });
    expect(session.state.group.phones.find((phone) => phone.deviceId === 'b')).toMatchObject({ held: false, reason: 'Taken over by Ola' });
  });

  it('asks the person controlling a phone for it, and shows it held once they hand it over', async () => {
    const socket = new FakeSocket();
    socket.answer('live.watch', () => ({ ok: true, streaming: true, canControl: true }));
    socket.answer('live.group.start', () => ({
      ok: true,
      leaderId: 'a',
      phones: [
        { deviceId: 'a', name: 'Pixel a', held: true, leader: true },
        { deviceId: 'b', name: 'Pixel b', held: false, leader: false, reason: 'Ola is in control of Pixel b. Ask to take over.', controlledBy: 'Ola' },
      ],
    }));
    socket.answer('live.ask', () => ({ ok: true }));
    const asked = vi.fn();
    const session = new GroupSession(socket as unknown as GroupSocket, {
      deviceIds: ['a', 'b'],
      leaderId: 'a',
      h264: true,
      changed: () => undefined,
      refused: vi.fn(),
      asked,
    });
    socket.serverConnects();
    await flush();
    expect(session.state.group.phones[1]).toMatchObject({ held: false, controlledBy: 'Ola' });
    expect(session.askFor('b')).toBe(true);
    await flush();
    expect(socket.sent('live.ask')).toEqual([{ deviceId: 'b' }]);
    expect(asked).toHaveBeenCalledWith('Ola');
    socket.push('live.group.state', { ...group('a', ['a', 'b']), reason: 'Pixel b was handed to you' });
    expect(session.state.group.phones[1]).toMatchObject({ held: true });
    expect(session.state.group.phones[1]?.controlledBy).toBeUndefined();
    expect(session.state.group.notice).toBe('Pixel b was handed to you');
  });

  it('hands every phone back on Stop all and lets the socket go on close', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    const before = socket.listenerCount;
    session.stop();
    expect(socket.sent('live.group.stop')).toEqual([{}]);
    expect(socket.sent('live.unwatch')).toHaveLength(3);
    expect(session.state.group.status).toBe('stopped');
    session.close();
    expect(socket.listenerCount).toBe(before - 8);
  });

  it('passes each phone’s pictures to the tile drawing it, and lets the others go', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    const video = vi.fn();
    session.attach('b', { video, frame: vi.fn() });
    const ack = vi.fn();
    socket.push('live.video', { deviceId: 'b', seq: 1 }, ack);
    socket.push('live.frame', { deviceId: 'c', seq: 1 }, ack);
    expect(video).toHaveBeenCalledTimes(1);
    expect(ack).toHaveBeenCalledTimes(2);
  });

  it('gives a tile that starts mid-stream (a new leader) the stream’s configuration first, and counts pictures as streaming', async () => {
    const { socket, session } = open();
    socket.answer('live.watch', () => ({ ok: true, streaming: false, reason: 'Starting the stream', canControl: true }));
    socket.serverConnects();
    await flush();
    expect(session.state.watch.a).toEqual({ kind: 'watching', streaming: false, reason: 'Starting the stream' });
    const config = { deviceId: 'a', seq: 1, config: true };
    socket.push('live.video', config, () => undefined);
    socket.push('live.video', { deviceId: 'a', seq: 2, config: false }, () => undefined);
    expect(session.state.watch.a).toEqual({ kind: 'watching', streaming: true });
    const video = vi.fn();
    session.attach('a', { video, frame: vi.fn() });
    expect(video).toHaveBeenCalledWith(config);
  });

  it('watches and holds the phones again after a reconnect, with the leader of the moment', async () => {
    const { socket, session } = open();
    socket.serverConnects();
    await flush();
    socket.answer('live.group.leader', () => ({ ok: true, ...group('b', ['a', 'b', 'c']) }));
    session.makeLeader('b');
    socket.drops();
    socket.serverConnects();
    await flush();
    expect(socket.sent('live.watch')).toHaveLength(6);
    expect(socket.sent('live.group.start')[1]).toEqual({ deviceIds: ['a', 'b', 'c'], leaderId: 'b' });
    expect(session.state.group.status).toBe('running');
  });
});
