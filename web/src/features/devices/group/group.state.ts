/**
 * Group control's page state, as plain functions of the server's answers: the phones and their leader, the phones
 * dropped (so they can be added back), each phone's last result, and one summary line per action, newest first.
 * Kept apart from the socket so the merging rules are tested on their own.
 */
import { GROUP_MAX_PHONES, type LiveGroupActAnswer, type LiveGroupAnswer, type LiveGroupPhone, type LiveGroupResult } from '@farm/contracts';
import type { GroupAction, GroupActResult } from '@farm/agent-protocol/group';

/** How many summary lines the results panel keeps. */
export const MAX_ACTION_LINES = 50;

/** One action sent, as the results panel lists it. */
export interface GroupActionLine {
  actionId: string;
  summary: string;
  action: GroupAction;
  /** The phones it was sent to when it was a retry; absent: the whole group. */
  only?: string[];
  /** Each phone's result as the answer gave it (with any that came on their own before). */
  results: Record<string, GroupActResult>;
}

export type GroupStatus = 'connecting' | 'starting' | 'running' | 'refused' | 'stopped';

export interface GroupState {
  status: GroupStatus;
  /** Why the session could not start, or why it changed by itself (a phone released, offline). */
  notice: string | null;
  leaderId: string;
  phones: LiveGroupPhone[];
  /** Phones taken out of the group by the person (or released): Add back puts them in again. */
  dropped: { deviceId: string; name: string }[];
  /** Each phone's last result, and the action it answered. */
  last: Record<string, { actionId: string; result: GroupActResult }>;
  /** Newest first. */
  lines: GroupActionLine[];
  /** The leader found nothing under the finger that names itself: this tap may go again by point. */
  offerPoint: { x: number; y: number; press: 'tap' | 'long_press' } | null;
}

/** The page before the server answered: the phones of the address, names unknown yet. */
export function initialGroupState(deviceIds: readonly string[], leaderId: string): GroupState {
  return {
    status: 'connecting',
    notice: null,
    leaderId,
    phones: deviceIds.map((deviceId) => ({ deviceId, name: '', held: false, leader: deviceId === leaderId })),
    dropped: [],
    last: {},
    lines: [],
    offerPoint: null,
  };
}

/**
 * The session as the server says it is now. A phone that was in the group and is not any more moves to Dropped
 * (with its name); one back in the group leaves Dropped.
 */
export function applyGroupAnswer(state: GroupState, answer: LiveGroupAnswer, notice: string | null = null): GroupState {
  const inGroup = new Set(answer.phones.map((phone) => phone.deviceId));
  const names = new Map<string, string>();
  for (const phone of [...state.phones, ...state.dropped]) if (phone.name) names.set(phone.deviceId, phone.name);
  const left = state.phones
    .filter((phone) => !inGroup.has(phone.deviceId))
    .map((phone) => ({ deviceId: phone.deviceId, name: names.get(phone.deviceId) ?? phone.name }));
  const dropped = [...left, ...state.dropped.filter((phone) => !inGroup.has(phone.deviceId) && !left.some((gone) => gone.deviceId === phone.deviceId))];
  return {
    ...state,
    status: 'running',
    notice: notice ?? (state.status === 'running' ? state.notice : null),
    leaderId: answer.leaderId,
    phones: answer.phones.map((phone) => ({ ...phone, name: phone.name || names.get(phone.deviceId) || phone.name })),
    dropped,
    // A new leader's finger is another one: an offer made for the old leader's tap no longer holds.
    offerPoint: answer.leaderId === state.leaderId ? state.offerPoint : null,
  };
}

/** Whether `actionId` is older than `than` among the actions listed (an action not listed yet is the newest). */
function isOlder(state: GroupState, actionId: string, than: string): boolean {
  if (actionId === than) return false;
  const at = state.lines.findIndex((line) => line.actionId === actionId);
  const thanAt = state.lines.findIndex((line) => line.actionId === than);
  if (at === -1) return false;
  if (thanAt === -1) return true;
  return at > thanAt;
}

/** One phone's result as soon as it is known: it becomes the phone's last, unless the phone already answered a newer action. */
export function mergeResult(state: GroupState, { actionId, deviceId, result }: LiveGroupResult): GroupState {
  const current = state.last[deviceId];
  if (current && isOlder(state, actionId, current.actionId)) return state;
  const lines = state.lines.map((line) => (line.actionId === actionId ? { ...line, results: { ...line.results, [deviceId]: result } } : line));
  return { ...state, last: { ...state.last, [deviceId]: { actionId, result } }, lines };
}

/** An action's answer: its summary line on top, every phone's result, and the offer to tap by point when the leader made it. */
export function applyActAnswer(state: GroupState, answer: LiveGroupActAnswer, action: GroupAction, only?: string[]): GroupState {
  const earlier = state.lines.find((line) => line.actionId === answer.actionId);
  const results: Record<string, GroupActResult> = { ...earlier?.results };
  // Results pushed before the answer came (the line did not exist yet) are the phone's last ones.
  for (const [deviceId, last] of Object.entries(state.last)) if (last.actionId === answer.actionId) results[deviceId] = last.result;
  for (const entry of answer.results) results[entry.deviceId] = entry.result;
  const line: GroupActionLine = { actionId: answer.actionId, summary: answer.summary, action, results, ...(only ? { only } : {}) };
  let next: GroupState = {
    ...state,
    lines: [line, ...state.lines.filter((existing) => existing.actionId !== answer.actionId)].slice(0, MAX_ACTION_LINES),
    offerPoint: answer.offerPoint && action.kind === 'finger' ? { x: action.x, y: action.y, press: action.press } : null,
  };
  for (const entry of answer.results) next = mergeResult(next, entry);
  return next;
}

/** The person's last action (the newest line), which Retry sends again. */
export function lastLine(state: GroupState): GroupActionLine | null {
  return state.lines[0] ?? null;
}

/**
 * "Retry on the ones that missed": the phones still in the group whose result of the last action was not Done
 * (a phone that gave none counts as missed: when the leader misses, the server sends its followers nothing, and
 * a Done from an earlier action is not this one's). Empty when every phone did it.
 */
export function retryTargets(state: GroupState): string[] {
  const line = lastLine(state);
  if (!line) return [];
  const sentTo = new Set(line.only ?? state.phones.map((phone) => phone.deviceId));
  return state.phones.map((phone) => phone.deviceId).filter((deviceId) => sentTo.has(deviceId) && line.results[deviceId]?.kind !== 'done');
}

export type SameScreen = 'same' | 'different' | 'unknown';

/** Whether the phone showed the leader's screen at its last action: a result that acted on it (or missed on it) says so; a refusal does not. */
export function sameScreen(state: GroupState, deviceId: string): SameScreen {
  const last = state.last[deviceId];
  if (!last) return 'unknown';
  switch (last.result.kind) {
    case 'different_screen':
      return 'different';
    case 'done':
    case 'not_found':
    case 'matches':
      return 'same';
    // The rules are checked before the screens are compared: a refusal says nothing of the screen.
    case 'refused':
    case 'busy':
    case 'offline':
    case 'not_supported':
      return 'unknown';
  }
}

/** The words for `sameScreen`. */
export function sameScreenLabel(same: SameScreen): string {
  if (same === 'different') return 'Different screen';
  if (same === 'same') return 'Same screen';
  return 'Screen not compared yet';
}

/** The phones a group control link names, and the leader among them. */
export interface GroupLink {
  deviceIds: string[];
  leaderId: string | null;
  groupId: string | null;
  /** More phones were named than a session holds: only the first 30 are kept. */
  capped: boolean;
}

/** Reads `?ids=a,b,c&leader=a` or `?group=<id>`: each phone once, at most 30, the leader one of them (else the first). */
export function readGroupLink(params: URLSearchParams): GroupLink {
  const named = [
    ...new Set(
      (params.get('ids') ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id.length > 0),
    ),
  ];
  const deviceIds = named.slice(0, GROUP_MAX_PHONES);
  const leader = params.get('leader');
  return {
    deviceIds,
    leaderId: leader && deviceIds.includes(leader) ? leader : (deviceIds[0] ?? null),
    groupId: params.get('group') || null,
    capped: named.length > GROUP_MAX_PHONES,
  };
}

/** The address of a session of these phones (the first 30), led by `leaderId` or the first. */
export function groupControlPath(deviceIds: readonly string[], leaderId?: string): string {
  const ids = [...new Set(deviceIds)].slice(0, GROUP_MAX_PHONES);
  const leader = leaderId && ids.includes(leaderId) ? leaderId : ids[0];
  const params = new URLSearchParams({ ids: ids.join(',') });
  if (leader) params.set('leader', leader);
  return `/devices/group-control?${params.toString().replaceAll('%2C', ',')}`;
}

/** The address that opens a group's phones (the page takes its first 30). */
export function groupControlPathForGroup(groupId: string): string {
  return `/devices/group-control?group=${encodeURIComponent(groupId)}`;
}

/** Why Group control is not offered for this many phones, or null when it is. */
export function groupSizeRefusal(count: number): string | null {
  if (count === 0) return 'Select at least one phone';
  if (count > GROUP_MAX_PHONES) return `Group control drives at most ${GROUP_MAX_PHONES} phones at once: select ${GROUP_MAX_PHONES} or fewer`;
  return null;
}
