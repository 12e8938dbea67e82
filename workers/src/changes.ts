/** What a processor announces after its transaction commits: the same shape the API's change feed carries. */
export interface Announcement {
  workspaceId: string;
  event: string;
  payload: unknown;
  userId?: string;
}

export type Announce = (change: Announcement) => void;

/** The Redis channel on which worker processes hand their announcements to the API instances. */
export const CHANGES_CHANNEL = 'farm:changes';
