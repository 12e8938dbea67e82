/**
 * The calls of the task lifecycle's SQL snapshot (`sql/queries/lifecycle.sql`, see `@farm/sql/snapshot`): each
 * exported function of `src/tasks/lifecycle.ts` with fixed arguments, and rows for the statements a call needs
 * answered to reach its later ones (the task it settles, the lease that ran out).
 */
import type { TaskRow } from '@farm/sql';
import { call, callInTransaction, defineSnapshot, shownAs } from '@farm/sql/snapshot';
import type { RoutineRunWork } from '@farm/agent-protocol/work';
import * as lifecycle from '../../src/tasks/lifecycle.ts';
import { Outbox, Outboxes } from '../../src/outbox.ts';

const WORKSPACE = '11111111-1111-4111-8111-111111111111';
const DEVICE = '22222222-2222-4222-8222-222222222222';
const OTHER_DEVICE = '22222222-2222-4222-8222-000000000002';
const TASK = '33333333-3333-4333-8333-333333333333';
const OTHER_TASK = '33333333-3333-4333-8333-000000000002';
const POST = '44444444-4444-4444-8444-444444444444';
const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const SESSION = '66666666-6666-4666-8666-666666666666';

const at = new Date('2025-01-15T09:00:00.000Z');
const finishedAt = new Date('2025-01-15T09:04:00.000Z');

const work: RoutineRunWork = shownAs(
  {
    kind: 'routine.run',
    routineType: 'basic',
    routineName: 'Morning likes',
    platform: 'instagram',
    account: { id: ACCOUNT, username: 'acme', platform: 'instagram' },
    durationMinutes: 5,
    intensity: 3,
    actions: ['like'],
    keywords: [],
    referenceAccounts: [],
    settings: {},
    allowance: { likes: 20, follows: 0, comments: 0, posts: 0 },
    campaign: null,
    recipe: null,
  },
  'work(basic routine on Instagram)',
);

/** No shipped recipe likes on YouTube. */
const youtubeWork: RoutineRunWork = shownAs(
  { ...work, routineName: 'Evening likes', platform: 'youtube', account: { id: ACCOUNT, username: 'acme', platform: 'youtube' } },
  'work(basic routine on YouTube)',
);

/** A task row as the database would answer it; the snapshot shows it by its label. */
function task(label: string, overrides: Partial<TaskRow> = {}): TaskRow {
  const row: TaskRow = {
    id: TASK,
    workspaceId: WORKSPACE,
    title: 'Morning likes',
    description: null,
    type: 'engage',
    priority: 'medium',
    status: 'pending',
    deviceId: DEVICE,
    assignedToId: null,
    deadline: null,
    startedAt: null,
    completedAt: null,
    attempt: 1,
    dispatchedAt: null,
    postId: null,
    campaignSessionId: null,
    maxAttempts: 3,
    leaseExpiresAt: null,
    nextAttemptAt: null,
    lastProgressAt: null,
    progress: null,
    progressNote: null,
    failureCode: null,
    failureMessage: null,
    expectedSeconds: 300,
    work,
    sourceKey: `routine:${TASK}`,
    accountId: ACCOUNT,
    engagement: {},
    unconfirmedTaskId: null,
    handOver: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
  return shownAs(row, label);
}

const waiting = task('task(pending)');
const out = task('task(pending, dispatched, attempt 1 of 3)', { dispatchedAt: at, leaseExpiresAt: at });
const running = task('task(in-progress, dispatched, attempt 2 of 3)', { status: 'in-progress', attempt: 2, dispatchedAt: at, startedAt: at });
const runningHere = task('task(in-progress, not dispatched)', { status: 'in-progress', startedAt: at });
const failed = task('task(failed)', { status: 'failed', attempt: 3, completedAt: at, failureCode: 'unknown', failureMessage: 'Something went wrong' });
const outboxes = new Outboxes();
const outbox = new Outbox(WORKSPACE);

export const snapshot = defineSnapshot({
  source: 'workers/src/tasks/lifecycle.ts',
  module: lifecycle,
  notQueries: { failureText: 'the words of a failure' },
  legend: [
    `Fixed ids: workspace ${WORKSPACE}, devices ${DEVICE} and ${OTHER_DEVICE},`,
    `tasks ${TASK} and ${OTHER_TASK}, post ${POST},`,
    `account ${ACCOUNT}, campaign run ${SESSION}.`,
    "The automation's settings are the defaults.",
  ],
  cases: [
    callInTransaction(
      lifecycle.createTasks,
      [{ workspaceId: WORKSPACE, title: 'Morning likes', type: 'engage', priority: 'medium', deviceId: DEVICE, work, sourceKey: `routine:${TASK}` }],
      outboxes,
    ).because('phone work a shipped recipe does: the task alone'),
    callInTransaction(
      lifecycle.createTasks,
      [
        {
          workspaceId: WORKSPACE,
          title: 'Evening likes',
          type: 'engage',
          priority: 'low',
          deviceId: DEVICE,
          work: youtubeWork,
          sourceKey: `routine:${OTHER_TASK}`,
        },
      ],
      outboxes,
    ).because("phone work no shipped recipe does: the workspace's recipes for it, and with none the task is a person's"),
    call(lifecycle.readyWork).because("every phone's ready tasks (the builder, compiled)"),
    call(lifecycle.readyWork, DEVICE).because("one phone's ready tasks (the builder, compiled)"),
    call(lifecycle.dispatchNext, DEVICE),
    call(lifecycle.dispatchMany, [DEVICE, OTHER_DEVICE], outboxes)
      .answering([{ ...out, wokenPostId: POST }])
      .because('one lease whose post was waiting: the post is read to announce it'),
    call(lifecycle.ackTask, DEVICE, TASK, 1),
    call(lifecycle.ackTasks, [
      { deviceId: DEVICE, taskId: TASK, attempt: 1 },
      { deviceId: OTHER_DEVICE, taskId: OTHER_TASK, attempt: 2 },
    ]),
    call(lifecycle.progressTask, DEVICE, { taskId: TASK, attempt: 2, percent: 41.6, note: 'Liked 8 of 20' }),
    callInTransaction(lifecycle.acceptResult, DEVICE, { taskId: TASK, attempt: 2, status: 'completed', finishedAt }, outbox, outboxes).because(
      'an attempt this phone was never given',
    ),
    callInTransaction(
      lifecycle.acceptResult,
      DEVICE,
      {
        taskId: TASK,
        attempt: 2,
        status: 'failed',
        failure: { code: 'network', message: 'No connection', recipe: { id: 'instagram-like', version: 4 } },
      },
      outbox,
      outboxes,
    )
      .answering([{ ...running, givenOutcome: null }])
      .because('a retryable failure of the attempt out: the run counted, the task back to waiting'),
    callInTransaction(
      lifecycle.acceptResult,
      DEVICE,
      {
        taskId: TASK,
        attempt: 2,
        status: 'failed',
        failure: {
          code: 'screen_unreadable',
          recipe: { id: 'instagram-like', version: 4 },
          app: { package: 'com.instagram.android', version: '447.0.0.55.81', locale: 'en-US' },
        },
      },
      outbox,
      outboxes,
    )
      .answering([{ ...running, givenOutcome: null }], [])
      .because('an unreadable screen: tried again only when no earlier attempt of the task ended so'),
    callInTransaction(
      lifecycle.acceptResults,
      [
        { deviceId: DEVICE, workspaceId: WORKSPACE, result: { taskId: TASK, attempt: 2, status: 'completed', finishedAt, engagement: { likes: 20 } } },
        { deviceId: OTHER_DEVICE, workspaceId: WORKSPACE, result: { taskId: OTHER_TASK, attempt: 1, status: 'failed', failure: { code: 'app_crashed' } } },
        { deviceId: OTHER_DEVICE, workspaceId: WORKSPACE, result: { taskId: 'not-a-uuid', attempt: 1, status: 'completed' } },
      ],
      outboxes,
    ).because('completions written together, the rest one by one, an id that is no UUID not at all'),
    callInTransaction(lifecycle.settleTask, out, 'cancelled', { cause: 'person' }, outboxes)
      .answering([{ ...out, status: 'cancelled', completedAt: at }])
      .because('the attempt out on the phone is withdrawn'),
    callInTransaction(lifecycle.cancelTasks, { postId: POST }, { message: 'The post was deleted', cause: 'change' }, outboxes),
    callInTransaction(
      lifecycle.cancelTasks,
      { accountId: ACCOUNT, automationOnly: true, taskIds: [TASK], campaignSessionIds: [SESSION] },
      { message: 'The account was paused', cause: 'automation' },
      outboxes,
    ),
    callInTransaction(lifecycle.withdrawTask, running, 'The phone was reassigned', outbox).answering([{ ...running, status: 'pending', dispatchedAt: null }]),
    callInTransaction(lifecycle.moveTaskByPerson, running, 'completed', outbox),
    callInTransaction(lifecycle.moveTaskByPerson, running, 'failed', outbox),
    callInTransaction(lifecycle.moveTaskByPerson, running, 'cancelled', outbox),
    callInTransaction(lifecycle.moveTaskByPerson, waiting, 'in-progress', outbox),
    callInTransaction(lifecycle.moveTaskByPerson, runningHere, 'pending', outbox),
    callInTransaction(lifecycle.moveTaskByPerson, failed, 'pending', outbox),
    callInTransaction(lifecycle.retryTask, failed, outboxes).answering([{ ...failed, status: 'pending', completedAt: null }]),
    callInTransaction(lifecycle.completeFailedTask, failed, finishedAt, outboxes)
      .answering([{ ...failed, status: 'completed', completedAt: finishedAt }])
      .because('the post was seen published after all: the failed task is completed'),
    call(lifecycle.expireLeases, outboxes, 50).answering([out]).because('an attempt not acked in time: ended, and the task tried again later'),
  ],
});
