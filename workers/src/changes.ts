/** How processors announce what changed, after their transaction commits: the same typed `Change` the gateway relays. */
import type { Change } from '@farm/contracts';

export type { Change };
export type Announce = (change: Change) => void;

/** The Redis channel on which processes hand their announcements to the API instances. */
export const CHANGES_CHANNEL = 'farm:changes';

/** The counter that numbers the workers' announcements, in the order they are made (see api/src/events/relay.ts). */
export const CHANGES_SEQ_KEY = 'farm:changes:seq';

/** Changes every API process must hear wherever they were made: the dispatcher's facts about phones. */
export const SHARED_CHANGES: ReadonlySet<string> = new Set(['device.wake', 'task.withdrawn']);
