/**
 * The calls of the analytics' SQL snapshot (`sql/queries/analytics.sql`, see `@farm/sql/snapshot`): each figure of
 * `src/modules/analytics/analytics.queries.ts` over the ranges, windows, metrics and tables that change its
 * statement, with a group where it has one. Answers are the rows a function needs to finish (a window's bounds).
 */
import { call, defineSnapshot } from '@farm/sql/snapshot';
import * as analytics from '../../src/modules/analytics/analytics.queries.ts';

const WORKSPACE = '11111111-1111-4111-8111-111111111111';
const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const GROUP = '88888888-8888-4888-8888-888888888888';

const start = new Date('2025-01-09T00:00:00.000Z');
const end = new Date('2025-01-16T00:00:00.000Z');
const previousStart = new Date('2025-01-02T00:00:00.000Z');
const bounds = { timeZone: 'UTC', start, end, previousStart };
const figures = { total: 40, completed: 31, seconds: 7200, active: 2, devices: 12, online: 9 };
/** A series' answer with no points: the window alone. */
const noPoints = [{ windowZone: 'UTC', windowStart: start, windowEnd: end, at: null }];
const page = { limit: 25, offset: 0 };
/** The performance lists' answer when nothing is counted yet. */
const noLists = [{ devices: null, vas: null }];

export const snapshot = defineSnapshot({
  source: 'api/src/modules/analytics/analytics.queries.ts',
  module: analytics,
  notQueries: {
    rangeStart: 'the start of a range, computed here',
    successRate: 'a percentage of two counts',
    percentOf: 'a SQL fragment, seen in the statements that use it',
    tenthsOfHours: 'a SQL fragment, seen in the statements that use it',
    usageSecondsIn: 'a SQL fragment, seen in the statements that use it',
  },
  legend: [`Fixed ids: workspace ${WORKSPACE}, account ${ACCOUNT}, device group ${GROUP}.`],
  cases: [
    call(analytics.computeStats, WORKSPACE, undefined)
      .answering([{ devices: 12, online: 9, tasks: 40, completed: 31, active: 2, seconds: 7200 }])
      .because('of all time: the task totals from the tallies'),
    call(analytics.computeStats, WORKSPACE, '7d')
      .answering([{ devices: 12, online: 9, tasks: 40, completed: 31, active: 2, seconds: 7200 }])
      .because('over a range: the tasks created in it'),
    call(analytics.computeStats, WORKSPACE, undefined, GROUP).answering([figures]).because('one group of all time: counted from the rows'),
    call(analytics.computeStatsOfAllTime, WORKSPACE)
      .answering([{ ...figures, timeZone: 'Europe/Paris' }])
      .because("the stats read of all time: the figures and the workspace's time zone in one statement"),
    call(analytics.computeStatsOfAllTime, WORKSPACE, GROUP)
      .answering([{ ...figures, timeZone: 'Europe/Paris' }])
      .because('one group of all time'),
    call(analytics.computePerformance, WORKSPACE, undefined).answering(noLists).because('of all time: the rollup per phone and VA'),
    call(analytics.computePerformance, WORKSPACE, '30d').answering(noLists).because('over a range: the tasks created in it'),
    call(analytics.resolveWindow, WORKSPACE, { range: '24h' }).answering([bounds]),
    call(analytics.resolveWindow, WORKSPACE, { from: '2025-01-01', to: '2025-01-07', tz: 'Europe/Paris' }).answering([bounds]),
    call(analytics.computeWindowedStats, WORKSPACE, { range: '7d' }).answering([
      { ...bounds, ...figures, past: false },
      { ...bounds, ...figures, past: true },
    ]),
    call(analytics.computeWindowedStats, WORKSPACE, { range: '24h' }, GROUP).answering([
      { ...bounds, ...figures, past: false },
      { ...bounds, ...figures, past: true },
    ]),
    call(analytics.computeTimeseries, WORKSPACE, { range: '7d' }, 'tasks').answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { range: '24h' }, 'tasks', GROUP).answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { range: '7d' }, 'posts').answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { from: '2025-01-01', to: '2025-01-07' }, 'posts', GROUP).answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { range: '7d' }, 'sessions').answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { range: '7d' }, 'engagement').answering(noPoints),
    call(analytics.computeTimeseries, WORKSPACE, { range: '30d' }, 'devices').answering(noPoints),
    call(analytics.computeLeaderboard, WORKSPACE, { range: '7d' }, 'devices', page),
    call(analytics.computeLeaderboard, WORKSPACE, { range: '30d' }, 'devices', { sort: 'hours', order: 'asc', limit: 25, offset: 50, groupId: GROUP })
      .answering([], [{ total: 3 }])
      .because('sorted by hours, a page past the last row: the total counted apart'),
    call(analytics.computeLeaderboard, WORKSPACE, { range: '7d' }, 'vas', { sort: 'handsOnHours', ...page }),
    call(analytics.computeLeaderboard, WORKSPACE, { range: '90d' }, 'campaigns', { sort: 'name', ...page }),
    call(analytics.computeLeaderboard, WORKSPACE, { range: '7d' }, 'accounts', { sort: 'followersGained', order: 'desc', ...page }),
    call(analytics.computeAccountGrowth, WORKSPACE, ACCOUNT, { range: '30d' }),
    call(analytics.findAccountId, WORKSPACE, ACCOUNT),
  ],
});
