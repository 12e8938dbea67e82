/** Changes announced only after their transaction commits: the one Outbox, shared with the workers. */
export { Outbox } from '@farm/workers';
