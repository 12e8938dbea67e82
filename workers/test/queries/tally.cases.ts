/**
 * The call of the rollups' fold for its SQL snapshot (`sql/queries/tally.sql`, see `@farm/sql/snapshot`): the one
 * statement that folds the task and phone tallies and the analytics rollups the figures read.
 */
import { callAs, defineSnapshot } from '@farm/sql/snapshot';
import * as tally from '../../src/tasks/tally.ts';

export const snapshot = defineSnapshot({
  source: 'workers/src/tasks/tally.ts',
  module: tally,
  notQueries: {},
  cases: [callAs(tally.processTaskTally, 'undefined, { db, announce }', (db) => tally.processTaskTally(undefined, { db, announce: () => undefined }))],
});
