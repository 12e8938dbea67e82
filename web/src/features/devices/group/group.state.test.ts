import { groupResult, type GroupAction } from '@farm/agent-protocol/group';
import type { LiveGroupAnswer, LiveGroupPhone } from '@farm/contracts';
import { describe, expect, it } from 'vitest';
import {
  applyActAnswer,
  applyGroupAnswer,
  groupControlPath,
  groupSizeRefusal,
  initialGroupState,
  MAX_ACTION_LINES,
  mergeResult,
  readGroupLink,
  retryTargets,
  sameScreen,
  type GroupState,
} from './group.state';

const phone = (deviceId: string, extra: Partial<LiveGroupPhone> = {}): LiveGroupPhone => ({
  deviceId,
  name: `Pixel ${deviceId}`,
  held: true,
  leader: false,
  ...extra,
});
const answer = (leaderId: string, ids: string[]): LiveGroupAnswer => ({ leaderId, phones: ids.map((id) => phone(id, { leader: id === leaderId })) });
const home: GroupAction = { kind: 'key', key: 'home' };

function running(ids = ['a', 'b', 'c'], leaderId = 'a'): GroupState {
  return applyGroupAnswer(initialGroupState(ids, leaderId), answer(leaderId, ids));
}

describe('group control state', () => {
  it('takes the server’s phones and names, running', () => {
    const state = running();
    expect(state.status).toBe('running');
    expect(state.phones.map((entry) => entry.name)).toEqual(['Pixel a', 'Pixel b', 'Pixel c']);
    expect(state.leaderId).toBe('a');
  });

  it('moves a phone that left to Dropped, with its name, and back when it is added', () => {
    const dropped = applyGroupAnswer(running(), answer('a', ['a', 'c']));
    expect(dropped.phones.map((entry) => entry.deviceId)).toEqual(['a', 'c']);
    expect(dropped.dropped).toEqual([{ deviceId: 'b', name: 'Pixel b' }]);
    const back = applyGroupAnswer(dropped, answer('a', ['a', 'c', 'b']));
    expect(back.dropped).toEqual([]);
    expect(back.phones.map((entry) => entry.deviceId)).toEqual(['a', 'c', 'b']);
  });

  it('keeps the session’s own reason when it changed by itself', () => {
    const state = applyGroupAnswer(running(), answer('a', ['a', 'b']), 'Pixel c went offline and was released.');
    expect(state.notice).toBe('Pixel c went offline and was released.');
    expect(state.dropped.map((entry) => entry.deviceId)).toEqual(['c']);
  });

  it('changes the leader and forgets a tap-by-point offer made for the old one', () => {
    const finger: GroupAction = { kind: 'finger', x: 0.4, y: 0.6, press: 'tap' };
    const offered = applyActAnswer(running(), { actionId: 'x1', summary: 'Tap: offered by point', results: [], offerPoint: true }, finger);
    expect(offered.offerPoint).toEqual({ x: 0.4, y: 0.6, press: 'tap' });
    const led = applyGroupAnswer(offered, answer('b', ['a', 'b', 'c']));
    expect(led.leaderId).toBe('b');
    expect(led.offerPoint).toBeNull();
  });

  it('merges results as they come and from the answer, newest line first', () => {
    let state = running();
    state = mergeResult(state, { actionId: 'x1', deviceId: 'b', result: groupResult('x1', 'done') });
    state = applyActAnswer(
      state,
      {
        actionId: 'x1',
        summary: 'Home: Done on 2, Different screen on 1',
        results: [
          { actionId: 'x1', deviceId: 'a', result: groupResult('x1', 'done') },
          { actionId: 'x1', deviceId: 'c', result: groupResult('x1', 'different_screen') },
        ],
      },
      home,
    );
    expect(state.lines[0]?.summary).toBe('Home: Done on 2, Different screen on 1');
    expect(Object.keys(state.lines[0]?.results ?? {}).sort()).toEqual(['a', 'b', 'c']);
    expect(sameScreen(state, 'c')).toBe('different');
    expect(sameScreen(state, 'b')).toBe('same');
    state = mergeResult(state, {
      actionId: 'x1',
      deviceId: 'b',
      result: groupResult('x1', 'refused', { reason: 'Group control is for setup: Instagram is in front.' }),
    });
    expect(sameScreen(state, 'b')).toBe('unknown');
    state = applyActAnswer(state, { actionId: 'x2', summary: 'Back: Done on 3', results: [] }, { kind: 'key', key: 'back' });
    expect(state.lines.map((line) => line.summary)).toEqual(['Back: Done on 3', 'Home: Done on 2, Different screen on 1']);
  });

  it('does not let a late result of an older action replace a newer one', () => {
    let state = running();
    state = applyActAnswer(state, { actionId: 'x1', summary: 'Home', results: [] }, home);
    state = applyActAnswer(state, { actionId: 'x2', summary: 'Back', results: [{ actionId: 'x2', deviceId: 'b', result: groupResult('x2', 'done') }] }, home);
    state = mergeResult(state, { actionId: 'x1', deviceId: 'b', result: groupResult('x1', 'busy') });
    expect(state.last.b?.result.kind).toBe('done');
  });

  it('keeps at most the set number of lines', () => {
    let state = running();
    for (let index = 0; index < MAX_ACTION_LINES + 5; index += 1)
      state = applyActAnswer(state, { actionId: `x${index}`, summary: `${index}`, results: [] }, home);
    expect(state.lines).toHaveLength(MAX_ACTION_LINES);
    expect(state.lines[0]?.summary).toBe(`${MAX_ACTION_LINES + 4}`);
  });

  it('retries on the phones whose result was not Done, still in the group', () => {
    let state = running(['a', 'b', 'c', 'd']);
    state = applyActAnswer(
      state,
      {
        actionId: 'x1',
        summary: 'Tap',
        results: [
          { actionId: 'x1', deviceId: 'a', result: groupResult('x1', 'done') },
          { actionId: 'x1', deviceId: 'b', result: groupResult('x1', 'not_found') },
          { actionId: 'x1', deviceId: 'c', result: groupResult('x1', 'matches', { matches: 2 }) },
        ],
      },
      home,
    );
    // d gave no result: it missed too.
    expect(retryTargets(state)).toEqual(['b', 'c', 'd']);
    state = applyGroupAnswer(state, answer('a', ['a', 'b', 'd']));
    expect(retryTargets(state)).toEqual(['b', 'd']);
    // The retry went to b and d; b did it now: only d is left.
    state = applyActAnswer(
      state,
      { actionId: 'x2', summary: 'Tap (retry)', results: [{ actionId: 'x2', deviceId: 'b', result: groupResult('x2', 'done') }] },
      home,
      ['b', 'd'],
    );
    expect(retryTargets(state)).toEqual(['d']);
  });

  it('retries on every phone when the leader missed (its followers were sent nothing), even those done before', () => {
    let state = applyActAnswer(
      running(['a', 'b']),
      { actionId: 'x1', summary: 'Home: Done on 2', results: ['a', 'b'].map((deviceId) => ({ actionId: 'x1', deviceId, result: groupResult('x1', 'done') })) },
      home,
    );
    state = applyActAnswer(
      state,
      { actionId: 'x2', summary: 'Tap: Not found on 1', results: [{ actionId: 'x2', deviceId: 'a', result: groupResult('x2', 'not_found') }] },
      { kind: 'finger', x: 0.5, y: 0.5, press: 'tap' },
    );
    expect(retryTargets(state)).toEqual(['a', 'b']);
  });

  it('has nothing to retry when every phone did it, or nothing was sent', () => {
    expect(retryTargets(running())).toEqual([]);
    const done = applyActAnswer(
      running(['a', 'b']),
      {
        actionId: 'x1',
        summary: 'Home: Done on 2',
        results: ['a', 'b'].map((deviceId) => ({ actionId: 'x1', deviceId, result: groupResult('x1', 'done') })),
      },
      home,
    );
    expect(retryTargets(done)).toEqual([]);
  });
});

describe('group control links', () => {
  it('reads the phones and leader, each once, at most 30', () => {
    const ids = Array.from({ length: 34 }, (_, index) => `p${index}`);
    const link = readGroupLink(new URLSearchParams(`ids=${ids.join(',')},p1&leader=p3`));
    expect(link.deviceIds).toHaveLength(30);
    expect(link.capped).toBe(true);
    expect(link.leaderId).toBe('p3');
    expect(readGroupLink(new URLSearchParams('ids=a,b&leader=z')).leaderId).toBe('a');
    expect(readGroupLink(new URLSearchParams('group=g1'))).toEqual({ deviceIds: [], leaderId: null, groupId: 'g1', capped: false });
  });

  it('writes an address a reload opens again', () => {
    const path = groupControlPath(['a', 'b', 'c'], 'b');
    expect(path).toBe('/devices/group-control?ids=a,b,c&leader=b');
    const link = readGroupLink(new URLSearchParams(path.split('?')[1]));
    expect(link.deviceIds).toEqual(['a', 'b', 'c']);
    expect(link.leaderId).toBe('b');
  });

  it('offers Group control for 1 to 30 phones', () => {
    expect(groupSizeRefusal(0)).toBe('Select at least one phone');
    expect(groupSizeRefusal(30)).toBeNull();
    expect(groupSizeRefusal(31)).toBe('Group control drives at most 30 phones at once: select 30 or fewer');
  });
});
