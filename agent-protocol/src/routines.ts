/** The kinds of routine a campaign runs (SPEC's Routine.type): one list for the console, the server and the recipes. */
export const routineTypes = ['basic', 'warmup', 'doom_scroll', 'branch_from_account', 'create_post', 'basic_scroll', 'engage_comments'] as const;
export type RoutineType = (typeof routineTypes)[number];
