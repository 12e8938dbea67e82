import type { Kysely, Transaction } from 'kysely';
import type { DB } from '@farm/sql';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
