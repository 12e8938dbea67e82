/**
 * Group control: one operator's input on a leader phone, carried out on up to 30 phones, each finding its own element
 * (issue #52). For setup and navigation only. The phones are held with live control's rules (a control session each,
 * so no task, dry run or other controller reaches them, usage counted, idle release, release when the page closes);
 * the leader's stream is the controller's, the followers' the small one.
 *
 * An action goes to the leader first: its agent resolves the finger to a selector naming the element, and its result
 * says the screen it acted on. The followers then get the selector (or the same key, swipe, text…) with the leader's
 * screen, and each acts only on its own matching element. Every phone is checked here too before anything is sent (the
 * app in front as its heartbeat last said, the intent's closed list), and again by its agent against the screen read
 * that resolves the action. Each result reaches the page as it comes; each action is audited ("text, N characters",
 * never the text). There is no REST route, no recording, no replay and no schedule for group actions.
 */
import { randomUUID } from 'node:crypto';
import {
  checkGroupRules,
  checkIntent,
  groupActResult,
  groupResult,
  notSupportedResult,
  type GroupAction,
  type GroupActMessage,
  type GroupActResult,
  type GroupLists,
  type GroupResultKind,
  type RuleVerdict,
  type ScreenSignature,
} from '@farm/agent-protocol';
import { GROUP_MAX_PHONES, type LiveAnswer, type LiveGroupActAnswer, type LiveGroupAnswer, type LiveGroupResult } from '@farm/contracts';
import { recordAudit } from '../events/write.ts';
import { groupListsOf } from '../modules/group-control/group-control.queries.ts';
import type { Db } from '../shared/types.ts';
import type { LiveBus } from './live.bus.ts';
import type { LiveControl } from './live.control.ts';
import type { LiveHeld } from './live.held.ts';
import { groupDevices } from './live.queries.ts';
import type { LiveWatchers } from './live.watchers.ts';
import { refuse, type LiveSocket, type Message, type Signal } from './live.shared.ts';

/** A phone reads its screen (a UI dump takes seconds on old phones) and then acts: its result is waited for this long. */
export const GROUP_ACT_TIMEOUT_MS = 15_000;
/** At most this many actions a second per session (one per input event of a person). */
export const GROUP_ACTIONS_PER_SECOND = 2;

export const GROUP_OPERATORS_ONLY = 'Group control is for operators';
const NO_SESSION = 'Start group control first';

interface SessionPhone {
  deviceId: string;
  name: string;
  held: boolean;
  reason?: string | undefined;
  /** Someone else controls it: the page may ask them for it. */
  controlledBy?: string | undefined;
}

interface Session {
  socket: LiveSocket;
  leaderId: string;
  phones: Map<string, SessionPhone>;
  /** When the last actions came, for the rate. */
  recent: number[];
  /** The last action as its followers got it, and the leader's screen then: "Retry on the ones that missed". */
  last?: { followers: GroupAction; leader: ScreenSignature | undefined };
}

type Device = Awaited<ReturnType<typeof groupDevices>>[number];

export class LiveGroup {
  private readonly sessions = new Map<LiveSocket, Session>();
  private readonly pending = new Map<string, { answer: (result: GroupActResult) => void; timer: NodeJS.Timeout }>();
  private readonly me: string;

  constructor(
    private readonly bus: LiveBus,
    private readonly db: Db,
    private readonly control: LiveControl,
    private readonly watchers: LiveWatchers,
    private readonly held: LiveHeld,
    private readonly warn: (error: unknown) => void,
  ) {
    this.me = bus.instanceId;
  }

  // ── the operator's page ───────────────────────────────────────────────────────────────────────────────────

  async onStart(socket: LiveSocket, { deviceIds, leaderId }: Message<'live.group.start'>): Promise<LiveAnswer<LiveGroupAnswer>> {
    if (socket.data.role !== 'operator') return refuse(GROUP_OPERATORS_ONLY);
    const devices = await groupDevices(this.db, socket.data.workspaceId, deviceIds);
    const missing = deviceIds.findIndex((id) => !devices.some((device) => device.id === id));
    if (missing >= 0) return refuse(`deviceIds.${missing}: This phone is not in your workspace`);
    // A new start replaces the session: phones it no longer names are let go.
    const before = this.sessions.get(socket);
    if (before) {
      this.sessions.delete(socket);
      for (const phone of before.phones.values())
        if (!deviceIds.includes(phone.deviceId)) await this.control.letGo(socket, phone.deviceId, 'left group control');
    }
    const session: Session = { socket, leaderId, phones: new Map(), recent: [] };
    this.sessions.set(socket, session);
    for (const id of deviceIds) {
      const device = devices.find((row) => row.id === id)!;
      session.phones.set(id, await this.holdOne(socket, device, id !== leaderId));
    }
    return { ok: true, ...stateOf(session) };
  }

  async onLeader(socket: LiveSocket, { leaderId }: Message<'live.group.leader'>): Promise<LiveAnswer<LiveGroupAnswer>> {
    const session = this.sessionOf(socket);
    if (typeof session === 'string') return refuse(session);
    const next = session.phones.get(leaderId);
    if (!next) return refuse('That phone is not in the group');
    if (!next.held) return refuse(`${next.name} is not held (${next.reason ?? 'released'}): add it back before it leads`);
    if (leaderId === session.leaderId) return { ok: true, ...stateOf(session) };
    const previous = session.leaderId;
    session.leaderId = leaderId;
    session.last = undefined;
    await this.control.hold(socket, leaderId, false);
    if (session.phones.get(previous)?.held) await this.control.hold(socket, previous, true);
    return { ok: true, ...stateOf(session) };
  }

  async onAdd(socket: LiveSocket, { deviceId }: Message<'live.group.add'>): Promise<LiveAnswer<LiveGroupAnswer>> {
    const session = this.sessionOf(socket);
    if (typeof session === 'string') return refuse(session);
    if (!session.phones.has(deviceId) && session.phones.size >= GROUP_MAX_PHONES) return refuse(`A group holds at most ${GROUP_MAX_PHONES} phones`);
    const [device] = await groupDevices(this.db, socket.data.workspaceId, [deviceId]);
    if (!device) return refuse('This phone is not in your workspace');
    session.phones.set(deviceId, await this.holdOne(socket, device, deviceId !== session.leaderId));
    return { ok: true, ...stateOf(session) };
  }

  async onDrop(socket: LiveSocket, { deviceId }: Message<'live.group.drop'>): Promise<LiveAnswer<LiveGroupAnswer>> {
    const session = this.sessionOf(socket);
    if (typeof session === 'string') return refuse(session);
    if (deviceId === session.leaderId) return refuse('Make another phone the leader before dropping this one');
    // Out of the session first: its release is not news to the page that asked for it.
    if (session.phones.delete(deviceId)) await this.control.letGo(socket, deviceId, 'dropped from group control');
    return { ok: true, ...stateOf(session) };
  }

  async onStop(socket: LiveSocket): Promise<LiveAnswer> {
    const session = this.sessions.get(socket);
    if (!session) return { ok: true };
    this.sessions.delete(socket);
    for (const phone of session.phones.values()) await this.control.letGo(socket, phone.deviceId, 'group control stopped');
    return { ok: true };
  }

  async onAct(socket: LiveSocket, { action, only }: Message<'live.group.act'>): Promise<LiveAnswer<LiveGroupActAnswer>> {
    const session = this.sessionOf(socket);
    if (typeof session === 'string') return refuse(session);
    const now = Date.now();
    session.recent = session.recent.filter((at) => now - at < 1000);
    if (session.recent.length >= GROUP_ACTIONS_PER_SECOND) return refuse(`At most ${GROUP_ACTIONS_PER_SECOND} group actions a second: wait a moment`);
    session.recent.push(now);

    const leader = session.phones.get(session.leaderId)!;
    const leaderActs = !only || only.includes(leader.deviceId);
    if (leaderActs && !leader.held) return refuse(`${leader.name} leads the group but is not held any more: make another phone the leader`);
    const followers = [...session.phones.values()].filter((phone) => phone.deviceId !== leader.deviceId && (!only || only.includes(phone.deviceId)));
    const ids = [...(leaderActs ? [leader.deviceId] : []), ...followers.map((phone) => phone.deviceId)];
    const [lists, devices] = await Promise.all([groupListsOf(this.db, socket.data.workspaceId), groupDevices(this.db, socket.data.workspaceId, ids)]);
    const actionId = randomUUID();
    const results: LiveGroupResult[] = [];
    const tell = (deviceId: string, result: GroupActResult) => {
      const item = { actionId, deviceId, result };
      results.push(item);
      socket.emit('live.group.result', item);
    };
    for (const id of ids) this.control.touch(socket, id);

    // The leader first: its finger becomes the selector its followers look for, and its screen the one they match.
    let forFollowers: GroupAction;
    let leaderScreen: ScreenSignature | undefined;
    if (leaderActs) {
      const result = await this.actOn(socket, devices, leader, { actionId, action, lists });
      tell(leader.deviceId, result);
      if (result.kind !== 'done') return this.answered(socket, session, action, actionId, results, result.offerPoint === true);
      forFollowers = action.kind === 'finger' && result.selector ? { kind: 'selector', selector: result.selector, press: action.press } : action;
      leaderScreen = result.screen;
      session.last = { followers: forFollowers, leader: leaderScreen };
    } else {
      // A retry: the followers get what they got the first time (a finger's resolved selector), matched as then.
      if (action.kind === 'finger' && !session.last) return refuse('There is nothing to retry: act on the leader first');
      forFollowers = action.kind === 'finger' ? session.last!.followers : action;
      leaderScreen = session.last?.leader;
    }
    await Promise.all(
      followers.map(async (phone) => {
        tell(
          phone.deviceId,
          await this.actOn(socket, devices, phone, { actionId, action: forFollowers, lists, ...(leaderScreen ? { leader: leaderScreen } : {}) }),
        );
      }),
    );
    return this.answered(socket, session, action, actionId, results, false);
  }

  /** The page closed (its socket went): the session ends; its controls end with the watches (live.watchers.ts). */
  forget(socket: LiveSocket): void {
    this.sessions.delete(socket);
  }

  /** A phone of a session disconnected: it is released (the page is told, below); the person may add it back. */
  async phoneGone(deviceId: string): Promise<void> {
    for (const session of [...this.sessions.values()]) {
      if (session.phones.get(deviceId)?.held) await this.control.letGo(session.socket, deviceId, 'went offline');
    }
  }

  /** A control held here ended: a phone of a session shows as not held, and the page is told why. */
  controlEnded(socket: LiveSocket, deviceId: string, reason: string): void {
    const session = this.sessions.get(socket);
    const phone = session?.phones.get(deviceId);
    if (!session || !phone?.held) return;
    phone.held = false;
    phone.reason = reason;
    socket.emit('live.group.state', { ...stateOf(session), reason: `${phone.name}: ${reason}` });
  }

  /** Whether this page's session holds the phone as a follower (not its leader). */
  followerOf(socket: LiveSocket, deviceId: string): boolean {
    const session = this.sessions.get(socket);
    return (session?.phones.has(deviceId) ?? false) && session?.leaderId !== deviceId;
  }

  /** Its controller handed a phone of the session to this page (live control's handover): it is held again. */
  controlHanded(socket: LiveSocket, deviceId: string): void {
    const session = this.sessions.get(socket);
    const phone = session?.phones.get(deviceId);
    if (!session || !phone || phone.held) return;
    phone.held = true;
    phone.reason = undefined;
    phone.controlledBy = undefined;
    socket.emit('live.group.state', { ...stateOf(session), reason: `${phone.name} was handed to you` });
  }

  // ── the phones' side: an action for a phone held here, and its result for the asking instance ─────────────

  heardGroup(message: Signal<'group'>): void {
    const phone = this.held.phoneOf(message.deviceId);
    if (!phone) return;
    const answer = (result: GroupActResult) =>
      this.bus.signal({ t: 'group.result', from: this.me, to: message.from, reqId: message.reqId, ok: true, result: onBus(result) });
    const fail = (error: string) => this.bus.signal({ t: 'group.result', from: this.me, to: message.from, reqId: message.reqId, ok: false, error });
    if (!phone.phone.features.has('group')) {
      answer(notSupportedResult(message.message.actionId));
      return;
    }
    phone.phone.group(message.message, GROUP_ACT_TIMEOUT_MS).then(
      (ack) => {
        if (!ack.ok) return fail(ack.error);
        const parsed = groupActResult.safeParse((ack as { result?: unknown }).result);
        if (!parsed.success || parsed.data.actionId !== message.message.actionId) return fail('The phone answered with a result that cannot be read');
        answer(parsed.data);
      },
      () => fail('The phone did not answer in time. Is it still connected?'),
    );
  }

  heardGroupResult(message: Signal<'group.result'>): void {
    if (message.to !== this.me) return;
    const pending = this.pending.get(message.reqId);
    if (!pending) return;
    this.pending.delete(message.reqId);
    clearTimeout(pending.timer);
    pending.answer(message.ok ? offBus(message.result as BusResult) : groupResult('', 'refused', { reason: message.error ?? 'The phone could not do that' }));
  }

  /** The server stops: results still waiting are not answered. */
  clearPending(): void {
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
  }

  // ── inside ────────────────────────────────────────────────────────────────────────────────────────────────

  private sessionOf(socket: LiveSocket): Session | string {
    if (socket.data.role !== 'operator') return GROUP_OPERATORS_ONLY;
    return this.sessions.get(socket) ?? NO_SESSION;
  }

  /** Holds one phone for the session with live control's rules; where it cannot be, says why. */
  private async holdOne(socket: LiveSocket, device: Device, follower: boolean): Promise<SessionPhone> {
    const phone = { deviceId: device.id, name: device.name };
    if (!this.watchers.watchOf(socket, device.id)) return { ...phone, held: false, reason: "Open the phone's live screen first" };
    if (device.status === 'offline') return { ...phone, held: false, reason: 'Offline' };
    const answer = await this.control.hold(socket, device.id, follower);
    if (answer.ok) return { ...phone, held: true };
    const other = device.controlledById !== null && device.controlledById !== socket.data.userId ? device.controlledByName : null;
    return { ...phone, held: false, reason: answer.error, ...(other ? { controlledBy: other } : {}) };
  }

  /** One phone's result: checked here, then sent to the instance that holds it and waited for. */
  private async actOn(socket: LiveSocket, devices: Device[], phone: SessionPhone, message: GroupActMessage): Promise<GroupActResult> {
    const { actionId } = message;
    const device = devices.find((row) => row.id === phone.deviceId);
    if (!device || device.status === 'offline') return groupResult(actionId, 'offline', { reason: 'The phone is offline.' });
    if (!phone.held || !this.control.holds(socket, phone.deviceId))
      return groupResult(actionId, 'refused', { reason: `Not held for group control (${phone.reason ?? 'released'})` });
    const verdict = checkHere(message.action, device, message.lists);
    if (!verdict.ok) return groupResult(actionId, 'refused', { reason: verdict.reason });
    const reqId = randomUUID();
    const result = await new Promise<GroupActResult>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(reqId);
        resolve(groupResult(actionId, 'offline', { reason: 'The phone did not answer in time. Is it still connected?' }));
      }, GROUP_ACT_TIMEOUT_MS + 1000);
      this.pending.set(reqId, { answer: resolve, timer });
      this.bus.signal({ t: 'group', from: this.me, reqId, deviceId: phone.deviceId, message });
    });
    return { ...result, actionId };
  }

  /** The action's answer, and its audit entry: who, which phones, what (never the text typed), how each fared. */
  private async answered(
    socket: LiveSocket,
    session: Session,
    action: GroupAction,
    actionId: string,
    results: LiveGroupResult[],
    offerPoint: boolean,
  ): Promise<LiveAnswer<LiveGroupActAnswer>> {
    const what = describeAction(action, session.last?.followers);
    await recordAudit(this.db, socket.data.workspaceId, socket.data.userId, {
      action: 'group.act',
      entityType: 'device',
      entityId: session.leaderId,
      data: {
        what,
        ...(action.kind === 'selector' || session.last?.followers.kind === 'selector'
          ? { selector: action.kind === 'selector' ? action.selector : (session.last!.followers as Extract<GroupAction, { kind: 'selector' }>).selector }
          : {}),
        leaderId: session.leaderId,
        phones: results.map((item) => item.deviceId),
        results: Object.fromEntries(results.map((item) => [item.deviceId, item.result.kind])),
      },
    }).catch(this.warn);
    return { ok: true, actionId, summary: summaryOf(what, results), results, ...(offerPoint ? { offerPoint: true } : {}) };
  }
}

function stateOf(session: Session): LiveGroupAnswer {
  return {
    leaderId: session.leaderId,
    phones: [...session.phones.values()].map((phone) => ({
      deviceId: phone.deviceId,
      name: phone.name,
      held: phone.held,
      leader: phone.deviceId === session.leaderId,
      ...(phone.reason && !phone.held ? { reason: phone.reason } : {}),
      ...(phone.controlledBy && !phone.held ? { controlledBy: phone.controlledBy } : {}),
    })),
  };
}

/**
 * The API's own check, before anything is sent: the closed list of intents, and the rules against the app in front
 * as the phone's last heartbeat said it (the agent checks again against the screen it reads).
 */
function checkHere(action: GroupAction, device: Device, lists: GroupLists): RuleVerdict {
  if (device.foregroundApp === null) return action.kind === 'intent' ? checkIntent(action, lists.appLibrary) : { ok: true };
  return checkGroupRules(action, { front: device.foregroundApp, packages: [], shade: false, split: false, pip: false }, lists);
}

const KEYS = { back: 'Back', home: 'Home', recents: 'Recents', enter: 'Enter' } as const;

/** What an action was, for the summary line and the audit: a key, the element, "text, N characters" (never the text). */
export function describeAction(action: GroupAction, followers?: GroupAction): string {
  const press = (kind: 'tap' | 'long_press') => (kind === 'long_press' ? 'Long press' : 'Tap');
  switch (action.kind) {
    case 'finger': {
      const selector = followers?.kind === 'selector' ? followers.selector : undefined;
      const name = selector ? (selector.text ?? selector.desc ?? selector.id) : undefined;
      return name ? `${press(action.press)} “${name}”` : `${press(action.press)} on the leader`;
    }
    case 'selector':
      return `${press(action.press)} “${action.selector.text ?? action.selector.desc ?? action.selector.id}”`;
    case 'point':
      return `${press(action.press)} by point`;
    case 'swipe':
      return 'Swipe';
    case 'scroll':
      return 'Scroll';
    case 'key':
      return KEYS[action.key];
    case 'text':
      return `Text, ${[...action.text].length} characters`;
    case 'intent':
      return `Open ${action.action}${action.data ? ` ${action.data}` : ''}`;
  }
}

const SUMMARY_ORDER: GroupResultKind[] = ['done', 'not_found', 'matches', 'different_screen', 'refused', 'busy', 'offline', 'not_supported'];
const SUMMARY_WORDS: Record<GroupResultKind, string> = {
  done: 'Done',
  not_found: 'Not found',
  matches: 'Several matches',
  different_screen: 'Different screen',
  refused: 'Refused',
  busy: 'Busy',
  offline: 'Offline',
  not_supported: 'Not supported',
};

/** "Back: Done on 12, Not found on 2". */
export function summaryOf(what: string, results: readonly LiveGroupResult[]): string {
  const counts = new Map<GroupResultKind, number>();
  for (const item of results) counts.set(item.result.kind, (counts.get(item.result.kind) ?? 0) + 1);
  const parts = SUMMARY_ORDER.filter((kind) => counts.has(kind)).map((kind) => `${SUMMARY_WORDS[kind]} on ${counts.get(kind)}`);
  return `${what}: ${parts.join(', ') || 'no phone'}`;
}

type BusResult = Omit<GroupActResult, 'frame'> & { frame?: Omit<NonNullable<GroupActResult['frame']>, 'data'> & { data: string } };

/** A result as it crosses the bus: a frame's bytes base64. */
function onBus(result: GroupActResult): BusResult {
  const { frame, ...rest } = result;
  return frame ? { ...rest, frame: { ...frame, data: Buffer.from(frame.data).toString('base64') } } : rest;
}

function offBus(result: BusResult): GroupActResult {
  const { frame, ...rest } = result;
  return frame ? { ...rest, frame: { ...frame, data: new Uint8Array(Buffer.from(frame.data, 'base64')) } } : rest;
}
