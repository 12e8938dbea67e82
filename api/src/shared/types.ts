import type { Kysely, Transaction } from 'kysely';
import type { DB, Role } from '@farm/sql';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;

/** Who is asking, inside their workspace: what every product query is scoped by. */
export interface Actor {
  userId: string;
  workspaceId: string;
  role: Role;
}
