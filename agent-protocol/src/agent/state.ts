/**
 * The agent's state folder (`--state DIR`, `~/.farm-agent` by default): its credentials and its journals, written
 * with owner-only permissions, so a restarted agent keeps who it is and what it ran.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const defaultStateDir = () => join(homedir(), '.farm-agent');

const credential = z.object({ server: z.string(), token: z.string(), deviceId: z.string().optional(), hostId: z.string().optional() });
export type Credential = z.infer<typeof credential>;

export class AgentState {
  constructor(readonly dir: string = defaultStateDir()) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  /** The credential saved under `name` ('device' or 'host'), if the agent enrolled before. */
  credential(name: 'device' | 'host'): Credential | undefined {
    const file = join(this.dir, `${name}.json`);
    if (!existsSync(file)) return undefined;
    const parsed = credential.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  }

  saveCredential(name: 'device' | 'host', value: Credential): void {
    const file = join(this.dir, `${name}.json`);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(partial, file);
    chmodSync(file, 0o600);
  }

  /** Where the journal of one phone (by device id or serial) lives. */
  /** Where a post's media is kept once downloaded. */
  get mediaDir(): string {
    return join(this.dir, 'media');
  }

  journalPath(phone: string): string {
    return join(this.dir, 'journals', `${phone.replace(/[^\w.-]/g, '_')}.jsonl`);
  }
}
