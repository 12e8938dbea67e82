/**
 * A task's life, written once. REST routes, the `/agent` namespace and the workers move tasks only through these
 * functions, and every move is one guarded UPDATE, so of two movers racing exactly one wins.
 *
 *   pending ──dispatch──▶ dispatched ──ack──▶ in-progress ──result──▶ completed | failed
 *   (dispatched reads `pending` with dispatchedAt and leaseExpiresAt set; one attempt out per phone at most)
 *   an attempt that fails retryably, is not acked in time or stops progressing goes back to pending with backoff,
 *   until the task's attempts run out; any unsettled task can be cancelled; a person may retry a failed or
 *   cancelled one.
 *
 * Exactly once over an at-least-once wire: the task id is the idempotency key. A result of any attempt the phone
 * was given settles an unsettled task once (a late result after a reconnect included), and a newer attempt still
 * out is then withdrawn; results for settled tasks change nothing.
 */
import { unsettledTaskStatuses } from '@farm/agent-protocol/values';
import { sql, type RawBuilder } from 'kysely';
import type { FailureCode, TaskPriority, TaskRow, TaskStatus, TaskType } from '@farm/sql';
import { isUuid, serialize } from '@farm/sql';
import { failureLabels, neverRetriedCodes, retryableByDefault } from '@farm/agent-protocol/failures';
import type { EngagementReport, TaskWork } from '@farm/agent-protocol/work';
import type { RecipeRun } from '@farm/agent-protocol';
import type { HandOverRecord } from '@farm/contracts';
import type { Db, Tx } from '../db.ts';
import { type Outbox, Outboxes } from '../outbox.ts';
import { automation, backoffMs } from '../settings.ts';
import { applyCompletions, applyOutcome, type OutcomeCause } from './effects.ts';
import { byHandDescription, recipesCover } from './recipes.ts';
import { countsForBreaker, noteAppChanged, noteNewTasksHeld, notHeldByBreaker } from './breaker.ts';
import { dryRunUnderWay } from '../devices/status.ts';
import { attemptRunColumns, countRecipeRuns, runOf, type CountedRun } from './runs.ts';

export type Settled = 'completed' | 'failed' | 'cancelled';
export const settledStatuses: readonly Settled[] = ['completed', 'failed', 'cancelled'];
const unsettled = unsettledTaskStatuses;

export interface Failure {
  code: FailureCode;
  message?: string | undefined;
  retryable?: boolean | undefined;
  /** The recipe that ran and the app it drove, where the phone's run got that far (the breaker counts them). */
  recipe?: { id: string; version: number } | undefined;
  app?: { package: string; version: string; locale?: string | undefined } | undefined;
}

/** The words of a failure: the phone's own, or the code's label. */
export const failureText = (failure: Failure) => failure.message?.trim() || failureLabels[failure.code];

const ms = (value: number) => sql<Date>`now() + (${value} * interval '1 millisecond')`;
/** An attempt may run at most its expected time plus a margin (5 minutes, or as long again), however much it progresses. */
const hardLimit = sql<Date>`coalesce(started_at, now()) + ((expected_seconds * 1000 + greatest(300000, expected_seconds * 1000)) * interval '1 millisecond')`;

// ── create ──────────────────────────────────────────────────────────────────────────────────────────────

export interface NewTask {
  workspaceId: string;
  title: string;
  description?: string | null | undefined;
  type: TaskType;
  priority: TaskPriority;
  deviceId?: string | null | undefined;
  assignedToId?: string | null | undefined;
  deadline?: Date | string | null | undefined;
  work: TaskWork;
  /** Seconds the work should take on a phone. */
  expectedSeconds?: number | undefined;
  /** What made the task: a second creation from the same source makes nothing. */
  sourceKey?: string | null | undefined;
  postId?: string | null | undefined;
  campaignSessionId?: string | null | undefined;
  accountId?: string | null | undefined;
  /** Push the task to its assignee (default yes); work a phone's agent will run need not ring its VA. */
  notifyAssignee?: boolean | undefined;
  /** A person's question about the post of this publishing task, which its phone could not confirm. */
  unconfirmedTaskId?: string | null | undefined;
  /** A post a phone's run handed to a person: what the VA's task view shows (a comment counts once it is done). */
  handOver?: HandOverRecord | null | undefined;
}

/**
 * Creates tasks (those whose source already made one are skipped) and announces them; a phone with work is woken.
 * Phone work that no recipe can do (none shipped or in the workspace for its routine and platform) is made a
 * person's: the phone's VA does it by hand and marks it done, rather than the phone failing it.
 */
export async function createTasks(tx: Tx, given: NewTask[], outboxes: Outboxes): Promise<TaskRow[]> {
  if (given.length === 0) return [];
  const covered = await recipesCover(tx, given);
  const inputs = given.map((input, index) => (covered[index] ? input : byHand(input)));
  const rows = await tx
    .insertInto('tasks')
    .values(
      inputs.map((input) => ({
        workspaceId: input.workspaceId,
        title: input.title,
        description: input.description ?? null,
        type: input.type,
        priority: input.priority,
        deviceId: input.deviceId ?? null,
        assignedToId: input.assignedToId ?? null,
        deadline: input.deadline ?? null,
        work: JSON.stringify(input.work),
        expectedSeconds: Math.max(1, Math.round(input.expectedSeconds ?? 300)),
        sourceKey: input.sourceKey ?? null,
        postId: input.postId ?? null,
        campaignSessionId: input.campaignSessionId ?? null,
        accountId: input.accountId ?? null,
        unconfirmedTaskId: input.unconfirmedTaskId ?? null,
        handOver: input.handOver ? JSON.stringify(input.handOver) : null,
        maxAttempts: automation().maxAttempts,
      })),
    )
    .onConflict((oc) => oc.column('sourceKey').doNothing())
    .returningAll()
    .execute()
    .then((inserted) => noteNewTasksHeld(tx, inserted));
  const quiet = new Set(inputs.filter((input) => input.notifyAssignee === false && input.sourceKey).map((input) => input.sourceKey));
  for (const row of rows) {
    const outbox = outboxes.for(row.workspaceId);
    outbox.add('task.created', serialize(row));
    if (row.assignedToId && !(row.sourceKey && quiet.has(row.sourceKey))) outbox.add('task.assigned', serialize(row), row.assignedToId);
    if (row.deviceId) outbox.internal('device.wake', { deviceId: row.deviceId });
  }
  return rows;
}

/** Phone work as a person's task: the work told in words, its assignee rung at once. */
function byHand(input: NewTask): NewTask {
  const description = byHandDescription(input.work);
  return { ...input, title: `${input.title} (by hand)`, description, work: { kind: 'manual', description }, notifyAssignee: true };
}

// ── the phone's side: dispatch, ack, progress, result ───────────────────────────────────────────────────

/**
 * The tasks (`t`) ready to go to their phone now: automation's work (a task a person wrote, or work no recipe can
 * do, is for the phone's VA), waiting, past any backoff, on a phone with no attempt out, no person controlling it
 * from the console and no dry run under way (`dryRunUnderWay`). With a device (an id, or a column of an outer query), only its tasks, so PostgreSQL looks up one
 * phone's by index.
 */
export function readyWork(db: Db, deviceId?: string | RawBuilder<string>) {
  const device = deviceId === undefined ? sql.ref<string>('t.deviceId') : typeof deviceId === 'string' ? sql<string>`${deviceId}` : deviceId;
  let query = db
    .selectFrom('tasks as t')
    .where('t.status', '=', 'pending')
    .where('t.dispatchedAt', 'is', null)
    .where('t.sourceKey', 'is not', null)
    .where(sql<boolean>`t.work->>'kind' is distinct from 'manual'`)
    .where((eb) => eb.or([eb('t.nextAttemptAt', 'is', null), eb('t.nextAttemptAt', '<=', sql<Date>`now()`)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('tasks as o').select('o.id').where('o.deviceId', '=', device).where('o.dispatchedAt', 'is not', null).where('o.status', 'in', unsettled),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('devices as d').select('d.id').where('d.id', '=', device).where('d.controlledById', 'is not', null))),
    )
    // A phone running a dry run waits for it to end, as under live control (the rule: devices/status.ts).
    .where(({ not }) => not(dryRunUnderWay(device)))
    .where(notHeldByBreaker);
  if (deviceId !== undefined) query = query.where('t.deviceId', '=', device);
  return query;
}

/**
 * Leases the device's next ready task (a post, a routine run, a warm-up; high priority first, then oldest) to its
 * phone as a new attempt. Answers the leased task, or nothing. Safe to call from anywhere at any time: the unique
 * index of out attempts per device makes a racing second call lease nothing.
 */
export async function dispatchNext(db: Db, deviceId: string, outbox?: Outbox): Promise<TaskRow | undefined> {
  return (await dispatchMany(db, [deviceId], outbox ? Outboxes.of(outbox) : undefined)).get(deviceId);
}

/**
 * A lease that lost a race with another dispatcher's over the same phones: that one leased first (a unique violation
 * of the one attempt out per phone), or each held a phone the other waited for and PostgreSQL undid this one (a
 * deadlock: a batch's leases are written in the order of its plan, not of its phones).
 */
const LOST_RACE = new Set(['23505', '40P01']);

/**
 * As `dispatchNext` for any number of phones in one statement (a busy farm's hand-overs, gathered while the last
 * batch was written): answers the tasks leased, by device. If another dispatcher's lease over the same phones won,
 * the phones are leased one by one, so the others still get theirs. Device ids are UUIDs.
 */
export async function dispatchMany(db: Db, deviceIds: readonly string[], outboxes?: Outboxes): Promise<Map<string, TaskRow>> {
  if (deviceIds.length === 0) return new Map();
  try {
    return await leaseEach(db, deviceIds, outboxes);
  } catch (error) {
    if (!LOST_RACE.has(String((error as { code?: unknown }).code))) throw error;
    if (deviceIds.length === 1) return new Map();
    const leased = new Map<string, TaskRow>();
    for (const deviceId of deviceIds) for (const [id, task] of await dispatchMany(db, [deviceId], outboxes)) leased.set(id, task);
    return leased;
  }
}

async function leaseEach(db: Db, deviceIds: readonly string[], outboxes?: Outboxes): Promise<Map<string, TaskRow>> {
  // Each phone's next task, locked (a task another dispatcher holds is skipped, not waited for).
  const picked = db
    .selectFrom(sql<{ p: string }>`unnest(${[...deviceIds]}::uuid[])`.as('p'))
    .innerJoinLateral(
      readyWork(db, sql.ref<string>('p.p'))
        .select('t.id')
        .orderBy(sql`case t.priority when 'high' then 0 when 'medium' then 1 else 2 end`)
        .orderBy('t.createdAt')
        .orderBy('t.id')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .as('n'),
      (join) => join.onTrue(),
    )
    .select('n.id');
  // One statement (one round trip, atomic without a transaction around it): the leases, their attempts, and the
  // posts' waiting notices cleared now that their work is out.
  const rows = await db
    .with('leased', (db) =>
      db
        .updateTable('tasks')
        .set({
          attempt: sql<number>`attempt + 1`,
          dispatchedAt: sql<Date>`now()`,
          leaseExpiresAt: ms(automation().ackTimeoutMs),
          nextAttemptAt: null,
          progress: null,
          progressNote: null,
        })
        .where('id', 'in', picked)
        .returningAll(),
    )
    .with('given', (db) =>
      db
        .insertInto('taskAttempts')
        .columns(['taskId', 'attempt', 'workspaceId', 'deviceId'])
        .expression((eb) => eb.selectFrom('leased').select(['leased.id', 'leased.attempt', 'leased.workspaceId', 'leased.deviceId']))
        .returning('taskAttempts.taskId'),
    )
    .with('woken', (db) =>
      db
        .updateTable('posts')
        .set({ waitingCode: null, waitingMessage: null })
        .from('leased')
        .whereRef('posts.id', '=', 'leased.postId')
        .where('posts.waitingMessage', 'is not', null)
        .returning('posts.id'),
    )
    .selectFrom('leased')
    .selectAll('leased')
    .select((eb) => eb.selectFrom('woken').select('woken.id').whereRef('woken.id', '=', 'leased.postId').as('wokenPostId'))
    .execute();
  const woken = rows.flatMap((row) => (row.wokenPostId ? [row.wokenPostId] : []));
  const posts = woken.length > 0 && outboxes ? await db.selectFrom('posts').selectAll().where('id', 'in', woken).execute() : [];
  const leased = new Map<string, TaskRow>();
  for (const { wokenPostId, ...task } of rows) {
    const post = posts.find((post) => post.id === wokenPostId);
    if (post) outboxes?.for(task.workspaceId).add('post.updated', serialize(post));
    outboxes?.for(task.workspaceId).add('task.updated', serialize(task));
    leased.set(task.deviceId!, task);
  }
  return leased;
}

/** A phone's word that it took an attempt. */
export interface PhoneAck {
  deviceId: string;
  taskId: string;
  attempt: number;
}

/** The phone took the attempt: in progress, with a lease that only progress renews. Repeats change nothing. */
export async function ackTask(db: Db, deviceId: string, taskId: string, attempt: number, outbox?: Outbox): Promise<TaskRow | undefined> {
  const [task] = await ackTasks(db, [{ deviceId, taskId, attempt }]);
  if (task) outbox?.add('task.updated', serialize(task));
  return task;
}

/**
 * Phones took their attempts, any number in one statement (a busy farm's acks, gathered while the last batch was
 * written): each of those tasks in progress and its attempt marked acked, together or not at all. Answers the tasks
 * that moved; an ack of an attempt not out on that phone, or repeated, moves nothing. Task and device ids are UUIDs.
 */
export async function ackTasks(db: Db, acks: readonly PhoneAck[], outboxes?: Outboxes): Promise<TaskRow[]> {
  if (acks.length === 0) return [];
  const given = sql<unknown>`(select * from unnest(${acks.map((ack) => ack.taskId)}::uuid[], ${acks.map((ack) => ack.deviceId)}::uuid[], ${acks.map((ack) => ack.attempt)}::int[]))`;
  // (PostgreSQL runs a WITH's writes whether or not the query reads them.)
  const tasks = await db
    .with('acked', (db) =>
      db
        .updateTable('tasks')
        .set({
          status: 'in-progress',
          startedAt: sql<Date>`coalesce(started_at, now())`,
          lastProgressAt: sql<Date>`now()`,
          leaseExpiresAt: sql<Date>`least(${ms(automation().progressWindowMs)}, ${hardLimit})`,
        })
        .where(sql<boolean>`(id, device_id, attempt) in ${given}`)
        .where('status', '=', 'pending')
        .where('dispatchedAt', 'is not', null)
        .returningAll(),
    )
    .with('attempt', (db) =>
      db
        .updateTable('taskAttempts')
        .set({ ackedAt: sql<Date>`now()` })
        .from('acked')
        .whereRef('taskAttempts.taskId', '=', 'acked.id')
        .whereRef('taskAttempts.attempt', '=', 'acked.attempt')
        .returning('taskAttempts.taskId'),
    )
    .selectFrom('acked')
    .selectAll('acked')
    .execute();
  if (outboxes) for (const task of tasks) outboxes.for(task.workspaceId).add('task.updated', serialize(task));
  return tasks;
}

/** Work goes on: the lease is renewed (within the attempt's hard limit) and the console sees how far it got. */
export async function progressTask(
  db: Db,
  deviceId: string,
  progress: { taskId: string; attempt: number; percent: number; note?: string | undefined },
  outbox?: Outbox,
): Promise<TaskRow | undefined> {
  const task = await db
    .updateTable('tasks')
    .set({
      lastProgressAt: sql<Date>`now()`,
      leaseExpiresAt: sql<Date>`least(${ms(automation().progressWindowMs)}, ${hardLimit})`,
      progress: Math.round(progress.percent),
      progressNote: progress.note ?? null,
    })
    .where('id', '=', progress.taskId)
    .where('deviceId', '=', deviceId)
    .where('attempt', '=', progress.attempt)
    .where('status', '=', 'in-progress')
    .where('dispatchedAt', 'is not', null)
    .returningAll()
    .executeTakeFirst();
  if (task) outbox?.add('task.updated', serialize(task));
  return task;
}

export interface PhoneResult {
  taskId: string;
  attempt: number;
  status: 'completed' | 'failed';
  failure?: Failure | undefined;
  engagement?: EngagementReport | undefined;
  finishedAt?: Date | undefined;
  /** The recipe run the attempt was (protocol 2 agents that say it); counted on the health board. */
  run?: RecipeRun | undefined;
}

/** What became of a phone's result. */
export type ResultVerdict =
  /** The task is settled by this result. */
  | { kind: 'settled'; task: TaskRow }
  /** The attempt failed and the task will be tried again. */
  | { kind: 'retrying'; task: TaskRow }
  /** The task was already settled, or a newer attempt decides: nothing changed. */
  | { kind: 'ignored'; task: TaskRow; late: boolean }
  /** This phone was never given that attempt. */
  | { kind: 'unknown' };

/**
 * A phone's result for one of its attempts. Any attempt of an unsettled task may settle it (a late result after a
 * reconnect included); a failure of an older attempt is stale when a newer one is out.
 */
export async function acceptResult(tx: Tx, deviceId: string, result: PhoneResult, outbox: Outbox, outboxes: Outboxes): Promise<ResultVerdict> {
  // One statement: the task and the attempt this phone was given, both locked, the task first as every move of a
  // task does (so a person calling it off at the same moment waits, or is waited for, never deadlocks); then the
  // phone's word recorded on the attempt, since it is what happened on the phone whatever the task has become since.
  // An outcome the server gave (expired, withdrawn) gives way to it; a result already recorded stays. (A WITH's
  // write runs after the query it stands beside, which reads the attempt as it was.)
  const run = runOf(result);
  const found = await tx
    .with('recorded', (db) =>
      db
        .updateTable('taskAttempts')
        .set({
          outcome: result.status,
          endedAt: result.finishedAt ?? sql<Date>`now()`,
          failureCode: result.status === 'failed' ? (result.failure?.code ?? 'unknown') : null,
          failureMessage: result.status === 'failed' ? (result.failure?.message ?? null) : null,
          ...attemptRunColumns(run),
          // The app's UI language where the pre-flight read it: the console names it for a phone held back by it.
          appLocale: result.run?.app?.locale ?? result.failure?.app?.locale ?? null,
        })
        .where('taskId', '=', result.taskId)
        .where('attempt', '=', result.attempt)
        .where('deviceId', '=', deviceId)
        .where((eb) => eb.or([eb('outcome', 'is', null), eb('outcome', 'in', ['expired', 'withdrawn'])]))
        .returning('taskId'),
    )
    .selectFrom('tasks as t')
    .innerJoin('taskAttempts as a', 'a.taskId', 't.id')
    .selectAll('t')
    .select('a.outcome as givenOutcome')
    .where('t.id', '=', result.taskId)
    .where('a.attempt', '=', result.attempt)
    .where('a.deviceId', '=', deviceId)
    .forUpdate()
    .executeTakeFirst();
  if (!found) return { kind: 'unknown' };
  const { givenOutcome, ...task } = found;
  // Counted when this statement recorded the phone's word (the attempt, locked, had none yet: `recorded`'s own
  // condition; the CTE itself cannot be read here without running before the lock). A result sent again counts nothing.
  const firstWord = givenOutcome === null || givenOutcome === 'expired' || givenOutcome === 'withdrawn';
  if (firstWord && run) await countRecipeRuns(tx, [{ workspaceId: task.workspaceId, deviceId, status: result.status, code: result.failure?.code, run }]);
  if ((settledStatuses as readonly string[]).includes(task.status)) {
    return { kind: 'ignored', task, late: result.status === 'completed' && task.status === 'cancelled' && givenOutcome !== 'completed' };
  }
  if (result.status === 'completed') {
    const settled = await settleTask(
      tx,
      task,
      'completed',
      { cause: 'phone', attempt: result.attempt, engagement: result.engagement, finishedAt: result.finishedAt },
      outboxes,
    );
    return settled ? { kind: 'settled', task: settled } : { kind: 'ignored', task, late: false };
  }
  const failure: Failure = result.failure ?? { code: 'unknown' };
  if (result.attempt < task.attempt) return { kind: 'ignored', task, late: false };
  const retryable =
    !neverRetriedCodes.has(failure.code) &&
    (failure.retryable ?? retryableByDefault[failure.code]) &&
    (failure.code !== 'screen_unreadable' || !(await endedUnreadableBefore(tx, task.id, result.attempt)));
  if (retryable && task.attempt < task.maxAttempts) {
    const again = await retryLater(tx, task, failure, outbox);
    if (again) return { kind: 'retrying', task: again };
  }
  const settled = await settleTask(tx, task, 'failed', { cause: 'phone', attempt: result.attempt, failure, engagement: result.engagement }, outboxes);
  if (settled && countsForBreaker(failure.code)) await noteAppChanged(tx, settled, failure, outbox);
  return settled ? { kind: 'settled', task: settled } : { kind: 'ignored', task, late: false };
}

/**
 * An unreadable screen is tried again once, then final: true when an earlier attempt of the task already ended
 * `screen_unreadable` (each attempt records the phone's failure code), whatever the phone or the task's attempts left.
 */
async function endedUnreadableBefore(tx: Tx, taskId: string, attempt: number): Promise<boolean> {
  const earlier = await tx
    .selectFrom('taskAttempts')
    .select('attempt')
    .where('taskId', '=', taskId)
    .where('attempt', '<', attempt)
    .where('failureCode', '=', 'screen_unreadable')
    .limit(1)
    .executeTakeFirst();
  return earlier !== undefined;
}

/** A phone's result, with the phone that sent it and the phone's workspace. */
export interface ResultFrom {
  deviceId: string;
  workspaceId: string;
  result: PhoneResult;
}

/**
 * Many phones' results in one transaction (a busy farm's, gathered while the last batch was written), each with the
 * verdict `acceptResult` would give it, in the order given. The common case is written together, in three statements
 * whatever the number: a result that completes the attempt out on the phone that sent it, for a task of no campaign
 * run. Every other result, and any result of a task named twice in the batch, goes through `acceptResult` one by one
 * after them. A task id that is not a UUID names no task: its verdict is `unknown`, without a statement.
 */
export async function acceptResults(tx: Tx, given: readonly ResultFrom[], outboxes: Outboxes): Promise<ResultVerdict[]> {
  const verdicts: (ResultVerdict | undefined)[] = given.map(({ result }) => (isUuid(result.taskId) ? undefined : { kind: 'unknown' }));
  const named = new Map<string, number>();
  for (const { result } of given) named.set(result.taskId, (named.get(result.taskId) ?? 0) + 1);
  const together = given.flatMap((one, i) => (verdicts[i] === undefined && one.result.status === 'completed' && named.get(one.result.taskId) === 1 ? [i] : []));
  if (together.length > 0) {
    const completed = await completeTogether(
      tx,
      together.map((i) => given[i]!),
      outboxes,
    );
    for (const [task, i] of completed) verdicts[together[i]!] = { kind: 'settled', task };
  }
  for (const [i, one] of given.entries()) {
    verdicts[i] ??= await acceptResult(tx, one.deviceId, one.result, outboxes.for(one.workspaceId), outboxes);
  }
  return verdicts as ResultVerdict[];
}

/**
 * Completes the tasks whose attempt out is on the phone that reports it completed, and that belong to no campaign run,
 * as `acceptResult` and `settleTask` would one by one: the attempts recorded, the tasks settled, their posts and
 * accounts' daily actions written (`applyCompletions`). Answers each task completed with its index in `given`; a
 * result that is not of that kind changes nothing here. Task and device ids are UUIDs, each task named once.
 */
async function completeTogether(tx: Tx, given: readonly ResultFrom[], outboxes: Outboxes): Promise<[TaskRow, number][]> {
  const runs = given.map(({ result }) => attemptRunColumns(runOf(result)));
  const results = sql<{
    i: number;
    id: string;
    deviceId: string;
    attempt: number;
    finishedAt: Date | null;
    engagement: string | null;
    recipeId: string | null;
    recipeVersion: number | null;
    appPackage: string | null;
    appVersion: string | null;
    runMs: number | null;
  }>`(select * from unnest(
      ${given.map((_, i) => i)}::int[],
      ${given.map(({ result }) => result.taskId)}::uuid[],
      ${given.map(({ deviceId }) => deviceId)}::uuid[],
      ${given.map(({ result }) => result.attempt)}::int[],
      ${given.map(({ result }) => result.finishedAt?.toISOString() ?? null)}::timestamptz[],
      ${given.map(({ result }) => (result.engagement ? JSON.stringify(result.engagement) : null))}::jsonb[],
      ${runs.map((run) => run.recipeId)}::text[],
      ${runs.map((run) => run.recipeVersion)}::int[],
      ${runs.map((run) => run.appPackage)}::text[],
      ${runs.map((run) => run.appVersion)}::text[],
      ${runs.map((run) => run.runMs)}::int[]
    ) as g(i, id, device_id, attempt, finished_at, engagement, recipe_id, recipe_version, app_package, app_version, run_ms))`;
  // One statement: the tasks settled and, after, their attempts recorded (the tasks locked first, as every move of a
  // task does). Each task's row is locked and checked again by the update, so a task another mover settled or took
  // back meanwhile is left to `acceptResult`.
  const rows = await tx
    .with('g', () => results)
    .with('settled', (db) =>
      db
        .updateTable('tasks')
        .from('g')
        .set({
          status: 'completed',
          completedAt: sql<Date>`now()`,
          leaseExpiresAt: null,
          nextAttemptAt: null,
          failureCode: null,
          failureMessage: null,
          progress: 100,
          engagement: sql<string>`coalesce(g.engagement, tasks.engagement)`,
        })
        .whereRef('tasks.id', '=', 'g.id')
        .whereRef('tasks.deviceId', '=', 'g.deviceId')
        .whereRef('tasks.attempt', '=', 'g.attempt')
        .where('tasks.dispatchedAt', 'is not', null)
        .where('tasks.status', 'in', unsettled)
        .where('tasks.campaignSessionId', 'is', null)
        .returningAll('tasks')
        .returning('g.i'),
    )
    .with('recorded', (db) =>
      db
        .updateTable('taskAttempts')
        .from('settled')
        .innerJoin('g', 'g.id', 'settled.id')
        .set({
          outcome: 'completed',
          endedAt: sql<Date>`coalesce(g.finished_at, now())`,
          failureCode: null,
          failureMessage: null,
          recipeId: sql<string | null>`g.recipe_id`,
          recipeVersion: sql<number | null>`g.recipe_version`,
          appPackage: sql<string | null>`g.app_package`,
          appVersion: sql<string | null>`g.app_version`,
          runMs: sql<number | null>`g.run_ms`,
        })
        .whereRef('taskAttempts.taskId', '=', 'settled.id')
        .whereRef('taskAttempts.attempt', '=', 'settled.attempt')
        .whereRef('taskAttempts.deviceId', '=', 'settled.deviceId')
        .where((eb) => eb.or([eb('taskAttempts.outcome', 'is', null), eb('taskAttempts.outcome', 'in', ['expired', 'withdrawn'])]))
        .returning('taskAttempts.taskId'),
    )
    .selectFrom('settled')
    .selectAll('settled')
    .select(sql<boolean>`exists (select 1 from recorded r where r.task_id = settled.id)`.as('firstWord'))
    .orderBy('settled.i')
    .execute();
  // Runs are counted with the statement that recorded the phones' words (see runs.ts).
  const counted = rows.flatMap(({ i, firstWord, workspaceId }): CountedRun[] => {
    const one = given[i]!;
    const run = runOf(one.result);
    return firstWord && run ? [{ workspaceId, deviceId: one.deviceId, status: 'completed', run }] : [];
  });
  await countRecipeRuns(tx, counted);
  const done = rows.map(({ i, firstWord: _counted, ...task }) => {
    const outbox = outboxes.for(task.workspaceId);
    outbox.add('task.updated', serialize(task));
    outbox.internal('device.wake', { deviceId: task.deviceId! });
    return { task, i };
  });
  await applyCompletions(
    tx,
    done.map(({ task, i }) => ({ task, engagement: given[i]!.result.engagement, finishedAt: given[i]!.result.finishedAt })),
    outboxes,
  );
  return done.map(({ task, i }) => [task, i]);
}

/** The current attempt failed but may be tried again: back to waiting, after a backoff. */
async function retryLater(tx: Tx, task: TaskRow, failure: Failure, outbox: Outbox): Promise<TaskRow | undefined> {
  const delay = backoffMs(task.attempt);
  const again = await tx
    .updateTable('tasks')
    .set({
      status: 'pending',
      dispatchedAt: null,
      leaseExpiresAt: null,
      nextAttemptAt: ms(delay),
      failureCode: failure.code,
      failureMessage: failureText(failure),
      progress: null,
      progressNote: null,
    })
    .where('id', '=', task.id)
    .where('attempt', '=', task.attempt)
    .where('status', 'in', unsettled)
    .returningAll()
    .executeTakeFirst();
  if (again) outbox.add('task.updated', serialize(again));
  return again;
}

// ── settling and calling off ────────────────────────────────────────────────────────────────────────────

export interface SettleDetail {
  /** Who settles: the phone that ran it, a person, the automation, or a change of what the task was for. */
  cause: OutcomeCause;
  /** The attempt whose result settles the task (a phone's). */
  attempt?: number | undefined;
  failure?: Failure | undefined;
  engagement?: EngagementReport | undefined;
  finishedAt?: Date | undefined;
}

/**
 * Settles an unsettled task once: completed, failed or cancelled, with what it means for its post, campaign run and
 * account. An attempt still out on a phone that did not send this result is withdrawn (the phone is told).
 * Answers the settled task, or nothing when it was settled already.
 */
export async function settleTask(tx: Tx, task: TaskRow, outcome: Settled, detail: SettleDetail, outboxes: Outboxes): Promise<TaskRow | undefined> {
  const failure = outcome === 'completed' ? undefined : (detail.failure ?? { code: outcome === 'cancelled' ? 'cancelled' : 'unknown' });
  const settled = await tx
    .updateTable('tasks')
    .set({
      status: outcome,
      completedAt: sql<Date>`now()`,
      leaseExpiresAt: null,
      nextAttemptAt: null,
      failureCode: failure?.code ?? null,
      failureMessage: failure ? failureText(failure) : null,
      ...(outcome === 'completed' ? { progress: 100 } : {}),
      ...(detail.engagement ? { engagement: JSON.stringify(detail.engagement) } : {}),
    })
    .where('id', '=', task.id)
    .where('status', 'in', unsettled)
    .returningAll()
    .executeTakeFirst();
  if (!settled) return undefined;
  const outbox = outboxes.for(settled.workspaceId);
  const out = task.dispatchedAt !== null && task.deviceId !== null;
  if (out && detail.attempt !== task.attempt) {
    await endAttempt(tx, task, outcome === 'cancelled' ? 'cancelled' : 'withdrawn', failure);
    outbox.internal('task.withdrawn', {
      taskId: task.id,
      deviceId: task.deviceId!,
      attempt: task.attempt,
      code: failure?.code ?? 'cancelled',
      reason: failure ? failureText(failure) : 'The task was finished elsewhere',
    });
  }
  outbox.add('task.updated', serialize(settled));
  const followUps = await applyOutcome(
    tx,
    settled,
    outcome,
    { cause: detail.cause, failure, engagement: detail.engagement, finishedAt: detail.finishedAt },
    outboxes,
  );
  for (const next of followUps) {
    if (next.kind === 'cancel-account-automation') {
      await cancelTasks(tx, { accountId: next.accountId, automationOnly: true }, { message: next.message, cause: 'automation' }, outboxes);
      continue;
    }
    // A person's task on the phone (no source key: it is never dispatched to the phone's agent), for its VA.
    const device = next.deviceId
      ? await tx.selectFrom('devices').select(['name', 'assignedToId']).where('id', '=', next.deviceId).executeTakeFirst()
      : undefined;
    await createTasks(
      tx,
      [
        {
          workspaceId: next.workspaceId,
          title: device ? `${next.title} on ${device.name}` : next.title,
          description: next.description,
          type: next.unconfirmedTaskId ? 'post' : 'monitor',
          priority: 'high',
          deviceId: next.deviceId,
          assignedToId: device?.assignedToId ?? null,
          accountId: next.accountId,
          unconfirmedTaskId: next.unconfirmedTaskId,
          work: { kind: 'manual', description: next.description },
        },
      ],
      outboxes,
    );
  }
  // The phone's next task (the dispatch triggers are named in api/src/agents/dispatcher.ts).
  if (settled.deviceId) outbox.internal('device.wake', { deviceId: settled.deviceId });
  return settled;
}

async function endAttempt(tx: Tx, task: TaskRow, outcome: 'expired' | 'withdrawn' | 'cancelled', failure?: Failure): Promise<void> {
  await tx
    .updateTable('taskAttempts')
    .set({ outcome, endedAt: sql<Date>`now()`, failureCode: failure?.code ?? null, failureMessage: failure ? failureText(failure) : null })
    .where('taskId', '=', task.id)
    .where('attempt', '=', task.attempt)
    .where('outcome', 'is', null)
    .execute();
}

/** Calls off every unsettled task matching `where`, for the same reason; answers the cancelled tasks. */
export async function cancelTasks(
  tx: Tx,
  where: { taskIds?: string[]; postId?: string; campaignSessionIds?: string[]; accountId?: string; automationOnly?: boolean },
  reason: { message: string; cause: OutcomeCause },
  outboxes: Outboxes,
): Promise<TaskRow[]> {
  let query = tx.selectFrom('tasks').selectAll().where('status', 'in', unsettled);
  if (where.taskIds) query = query.where('id', 'in', where.taskIds.length > 0 ? where.taskIds : ['00000000-0000-0000-0000-000000000000']);
  // A post's tasks, and the questions about its unconfirmed attempts (they have nothing left to ask).
  const { postId } = where;
  if (postId)
    query = query.where((eb) =>
      eb.or([eb('postId', '=', postId), eb('unconfirmedTaskId', 'in', eb.selectFrom('tasks as p').select('p.id').where('p.postId', '=', postId))]),
    );
  if (where.campaignSessionIds)
    query = query.where('campaignSessionId', 'in', where.campaignSessionIds.length > 0 ? where.campaignSessionIds : ['00000000-0000-0000-0000-000000000000']);
  if (where.accountId) query = query.where('accountId', '=', where.accountId);
  if (where.automationOnly) query = query.where('postId', 'is', null).where('sourceKey', 'is not', null);
  const tasks = await query.orderBy('id').forUpdate().execute();
  const cancelled: TaskRow[] = [];
  for (const task of tasks) {
    const row = await settleTask(tx, task, 'cancelled', { cause: reason.cause, failure: { code: 'cancelled', message: reason.message } }, outboxes);
    if (row) cancelled.push(row);
  }
  return cancelled;
}

/**
 * Takes back an attempt out on a phone without settling the task (it is reassigned, or a person takes it over): the
 * phone is told to drop it, and the attempt does not count against the task's retries.
 */
export async function withdrawTask(tx: Tx, task: TaskRow, reason: string, outbox: Outbox): Promise<TaskRow> {
  if (task.dispatchedAt === null || task.deviceId === null || !(unsettled as readonly string[]).includes(task.status)) return task;
  const returned = await tx
    .updateTable('tasks')
    .set({ status: 'pending', dispatchedAt: null, leaseExpiresAt: null, maxAttempts: sql<number>`max_attempts + 1`, progress: null, progressNote: null })
    .where('id', '=', task.id)
    .where('attempt', '=', task.attempt)
    .returningAll()
    .executeTakeFirstOrThrow();
  await endAttempt(tx, task, 'withdrawn', { code: 'cancelled', message: reason });
  outbox.internal('task.withdrawn', { taskId: task.id, deviceId: task.deviceId, attempt: task.attempt, code: 'cancelled', reason });
  outbox.add('task.updated', serialize(returned));
  return returned;
}

/**
 * A person moves a task's status (REST): settled, retried, taken over or returned to waiting, each a guarded move of
 * this module, taking back an attempt out on a phone first where needed.
 */
export async function moveTaskByPerson(tx: Tx, task: TaskRow, status: TaskStatus, outbox: Outbox): Promise<TaskRow> {
  const outboxes = Outboxes.of(outbox);
  switch (status) {
    case 'completed':
      return (await settleTask(tx, task, 'completed', { cause: 'person' }, outboxes)) ?? task;
    case 'failed':
      return (
        (await settleTask(tx, task, 'failed', { cause: 'person', failure: { code: 'unknown', message: 'Marked as failed by a person' } }, outboxes)) ?? task
      );
    case 'cancelled':
      return (await settleTask(tx, task, 'cancelled', { cause: 'person', failure: { code: 'cancelled', message: 'Cancelled by a person' } }, outboxes)) ?? task;
    case 'in-progress': {
      const held = await withdrawTask(tx, task, 'A person took the task over', outbox);
      const started = await tx
        .updateTable('tasks')
        .set({ status: 'in-progress', startedAt: held.startedAt ?? new Date() })
        .where('id', '=', task.id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
      if (!started) return held;
      outbox.add('task.updated', serialize(started));
      return started;
    }
    case 'pending': {
      if (task.status === 'failed' || task.status === 'cancelled') return (await retryTask(tx, task, outboxes)) ?? task;
      const held = await withdrawTask(tx, task, 'A person returned the task to waiting', outbox);
      const waiting = await tx
        .updateTable('tasks')
        .set({ status: 'pending' })
        .where('id', '=', task.id)
        .where('status', '=', 'in-progress')
        .returningAll()
        .executeTakeFirst();
      if (!waiting) return held;
      outbox.add('task.updated', serialize(waiting));
      if (waiting.deviceId) outbox.internal('device.wake', { deviceId: waiting.deviceId });
      return waiting;
    }
  }
}

/** A person tries a failed or cancelled task again: waiting, with a fresh set of attempts. */
export async function retryTask(tx: Tx, task: TaskRow, outboxes: Outboxes): Promise<TaskRow | undefined> {
  const again = await tx
    .updateTable('tasks')
    .set({
      status: 'pending',
      completedAt: null,
      dispatchedAt: null,
      leaseExpiresAt: null,
      nextAttemptAt: null,
      failureCode: null,
      failureMessage: null,
      progress: null,
      progressNote: null,
      maxAttempts: sql<number>`attempt + ${automation().maxAttempts}`,
    })
    .where('id', '=', task.id)
    .where('status', 'in', ['failed', 'cancelled'])
    .returningAll()
    .executeTakeFirst();
  if (!again) return undefined;
  const outbox = outboxes.for(again.workspaceId);
  outbox.add('task.updated', serialize(again));
  await applyOutcome(tx, again, 'retried', { cause: 'person' }, outboxes);
  // Tried again, the post of an unconfirmed attempt is no longer a question for a person.
  const asking = await tx.selectFrom('tasks').select('id').where('unconfirmedTaskId', '=', again.id).where('status', 'in', unsettled).execute();
  if (asking.length > 0)
    await cancelTasks(tx, { taskIds: asking.map((row) => row.id) }, { message: 'The post is being published again', cause: 'change' }, outboxes);
  if (again.deviceId) outbox.internal('device.wake', { deviceId: again.deviceId });
  return again;
}

/**
 * A failed task whose work was done after all (a person confirmed that the post went up, posts/confirmations.ts):
 * completed, so there is no Retry to do it twice, and counted in its account's actions of the day as a completion
 * finished at `finishedAt`. Answers the task, or nothing when it was no longer failed.
 */
export async function completeFailedTask(tx: Tx, task: TaskRow, finishedAt: Date, outboxes: Outboxes): Promise<TaskRow | undefined> {
  const done = await tx
    .updateTable('tasks')
    .set({ status: 'completed', completedAt: sql<Date>`now()`, failureCode: null, failureMessage: null, progress: 100 })
    .where('id', '=', task.id)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
  if (!done) return undefined;
  outboxes.for(done.workspaceId).add('task.updated', serialize(done));
  await applyCompletions(tx, [{ task: done, finishedAt }], outboxes);
  return done;
}

// ── the watchdog's side ─────────────────────────────────────────────────────────────────────────────────

/**
 * Ends leases that ran out: an attempt not acked in time (`ack_timeout`) or silent too long (`lease_expired`) is
 * withdrawn from its phone and the task tried again, or failed when its attempts are spent. Claimed with SKIP LOCKED,
 * so any number of watchdogs can sweep at once. Answers how many leases ended.
 */
export async function expireLeases(db: Db, outboxes: Outboxes, limit = 200): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const expired = await tx
      .selectFrom('tasks')
      .selectAll()
      .where('dispatchedAt', 'is not', null)
      .where('status', 'in', unsettled)
      .where('leaseExpiresAt', '<', sql<Date>`now()`)
      .orderBy('leaseExpiresAt')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    for (const task of expired) {
      const failure: Failure =
        task.status === 'pending'
          ? { code: 'ack_timeout', message: `The phone did not take attempt ${task.attempt} within ${Math.round(automation().ackTimeoutMs / 1000)} s` }
          : { code: 'lease_expired', message: `The phone stopped reporting progress on attempt ${task.attempt}` };
      const outbox = outboxes.for(task.workspaceId);
      await endAttempt(tx, task, 'expired', failure);
      if (task.deviceId)
        outbox.internal('task.withdrawn', {
          taskId: task.id,
          deviceId: task.deviceId,
          attempt: task.attempt,
          code: failure.code,
          reason: failureText(failure),
        });
      const again = task.attempt < task.maxAttempts ? await retryLater(tx, task, failure, outbox) : undefined;
      if (!again) await settleTask(tx, task, 'failed', { cause: 'automation', attempt: task.attempt, failure }, outboxes);
    }
    return expired.length;
  });
}
