/**
 * The recovery ladder's memory and the boots seen, kept in the host's state folder (`fleet-ladder.json`), so a host
 * restarted (an update, a power cut, a crash) still holds "a reboot twice a day", still knows a person was asked to
 * replug a phone, and still sees a reboot loop that spans its restart. Written whole to a temporary file and renamed
 * over the old one: a host killed mid-write leaves the previous memory, never half of one.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ladderMemory } from './fleet.ladder.ts';

export const fleetMemory = z.object({
  version: z.literal(1),
  ladder: ladderMemory,
  /** Boot times seen per serial (epoch ms), for the reboot-loop alert. */
  boots: z.record(z.string(), z.array(z.number())),
});
export type FleetMemory = z.infer<typeof fleetMemory>;

export interface FleetMemoryStore {
  /** The memory written last, or null when there is none (or it cannot be read: the ladder starts empty). */
  load(): FleetMemory | null;
  save(memory: FleetMemory): void;
}

/** The file in a state folder where the memory lives. */
export function fleetMemoryFile(stateDir: string): string {
  return join(stateDir, 'fleet-ladder.json');
}

/** A store in a file; `log` hears why a file was not read or not written (the host keeps going either way). */
export function fileMemoryStore(file: string, log: (line: string) => void = () => undefined): FleetMemoryStore {
  return {
    load() {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return null;
      }
      try {
        const parsed = fleetMemory.safeParse(JSON.parse(text));
        if (parsed.success) return parsed.data;
        log(`ignored the recovery memory in ${file}: ${parsed.error.issues[0]?.message ?? 'not valid'}`);
      } catch (error) {
        log(`ignored the recovery memory in ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      return null;
    },
    save(memory) {
      const partial = `${file}.${process.pid}.tmp`;
      try {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        writeFileSync(partial, `${JSON.stringify(memory)}\n`, { mode: 0o600 });
        renameSync(partial, file);
      } catch (error) {
        log(`cannot write the recovery memory to ${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/** A store that keeps nothing beyond the process (tests, and hosts run without a state folder). */
export function memoryStore(): FleetMemoryStore & { saved: FleetMemory | null } {
  const store = {
    saved: null as FleetMemory | null,
    load: () => store.saved,
    save: (memory: FleetMemory) => {
      store.saved = memory;
    },
  };
  return store;
}
