/**
 * The recovery ladder's rungs done for real: through the adb server's own host services (`host-serial:<serial>:reconnect`,
 * `host:kill`, what `adb reconnect` and `adb kill-server` send), adbkit for the phone's commands, and uhubctl for a
 * USB port's power.
 */
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import type { RecoveryActions, UsbPlace } from './fleet.recovery.ts';

export interface AdbServerAddress {
  host: string;
  port: number;
}

/**
 * Sends one host service request to the adb server (`<4 hex digits of length><request>`) and answers what followed
 * OKAY; a FAIL answer throws with the server's message. `host:kill` closes without an answer once the server exits.
 */
export function adbHostService(address: AdbServerAddress, request: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(address.port, address.host);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`The adb server did not answer "${request}" within ${timeoutMs / 1000} s.`));
    }, timeoutMs);
    const finish = (error: Error | null, value = '') => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    socket.on('connect', () => socket.write(`${request.length.toString(16).padStart(4, '0')}${request}`));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
    });
    socket.on('error', (error) => finish(new Error(`The adb server: ${error.message}`)));
    socket.on('close', () => {
      const status = data.subarray(0, 4).toString('latin1');
      const rest = data.subarray(4).toString('utf8');
      // Answers carry a length-prefixed payload (or, for some services, the bare text).
      const payload = /^[0-9a-f]{4}/i.test(rest) ? rest.slice(4) : rest;
      if (status === 'OKAY') finish(null, payload);
      else if (status === 'FAIL') finish(new Error(`The adb server refused "${request}": ${payload || 'no reason given'}.`));
      else if (request === 'host:kill') finish(null);
      else finish(new Error(`The adb server closed the connection without answering "${request}".`));
    });
  });
}

/** Runs a program and answers what it printed (stdout and stderr); rejects with that text when it fails. */
export function run(program: string, args: readonly string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      if (error) reject(new Error(output || error.message));
      else resolve(output);
    });
  });
}

/** What uhubctl prints when it cannot open the hubs (no udev rule, not root); text of uhubctl 2.x. */
const permissionProblem = /permission problems|permission denied|operation not permitted/i;

export type UhubctlCheck = { ok: true } | { ok: false; problem: string };

/** The message the console shows for a host whose uhubctl may not write. */
export const UHUBCTL_NO_PERMISSION = 'uhubctl: no permission';

/**
 * The start-up check: uhubctl runs, sees the hub at `location` (every hub it can switch when null), and may write to
 * it. Listing a hub reads the same device files a power change writes, so a listing without permission problems means
 * a cycle will be allowed.
 */
export async function checkUhubctl(location: string | null, program = 'uhubctl'): Promise<UhubctlCheck> {
  let output: string;
  try {
    output = await run(program, location ? ['-l', location] : [], 15_000);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (permissionProblem.test(text)) return { ok: false, problem: UHUBCTL_NO_PERMISSION };
    if (/ENOENT/.test(text)) return { ok: false, problem: 'uhubctl is not installed (apt install uhubctl).' };
    return { ok: false, problem: `uhubctl: ${text.split('\n')[0] ?? text}` };
  }
  if (permissionProblem.test(output)) return { ok: false, problem: UHUBCTL_NO_PERMISSION };
  if (/No compatible devices detected/i.test(output))
    return { ok: false, problem: location ? `uhubctl: no hub that can switch power at ${location}.` : 'uhubctl: no hub on this host can switch power.' };
  return { ok: true };
}

export interface AdbActionsOptions {
  server: AdbServerAddress;
  /** The adb program, to start the server again after `host:kill`. */
  adbBin?: string;
  uhubctlBin?: string;
  /** The host's own parts of the rungs: the phone's transport and UI reader live in its `AdbHost`. */
  reopen(serial: string): Promise<void>;
  restartReader(serial: string): Promise<void>;
  shell(serial: string, command: string, timeoutMs: number): Promise<string>;
  uiReader(serial: string, timeoutMs: number): Promise<void>;
  frame(serial: string, timeoutMs: number): Promise<void>;
}

export function adbRecoveryActions(options: AdbActionsOptions): RecoveryActions {
  const adb = options.adbBin ?? 'adb';
  return {
    shell: options.shell,
    uiReader: options.uiReader,
    frame: options.frame,
    reconnect: options.reopen,
    restartReader: options.restartReader,
    adbReconnect: async (serial) => {
      await adbHostService(options.server, `host-serial:${serial}:reconnect`);
    },
    restartAdbServer: async () => {
      await adbHostService(options.server, 'host:kill');
      // `start-server` forks a server on this machine only (`-H` names where a client connects, it starts nothing
      // there): the host restarts only a local server (a remote one is reported skipped, `fleet.recovery.ts`).
      await run(adb, ['-P', String(options.server.port), 'start-server'], 30_000);
    },
    reboot: async (serial) => {
      await rebootThroughServer(options.server, serial);
    },
    powerCycle: async (place: UsbPlace) => {
      await run(options.uhubctlBin ?? 'uhubctl', ['-l', place.hubLocation, '-p', String(place.port), '-a', 'cycle'], 60_000);
    },
  };
}

/** `host:transport:<serial>` then `reboot:` on the same connection (what `adb -s <serial> reboot` sends). */
function rebootThroughServer(address: AdbServerAddress, serial: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(address.port, address.host);
    const frame = (request: string) => `${request.length.toString(16).padStart(4, '0')}${request}`;
    let data = Buffer.alloc(0);
    let stage: 'transport' | 'reboot' = 'transport';
    const timer = setTimeout(() => done(new Error(`The adb server did not answer a reboot of ${serial} within ${timeoutMs / 1000} s.`)), timeoutMs);
    const done = (error: Error | null) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.on('connect', () => socket.write(frame(`host:transport:${serial}`)));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      while (data.length >= 4) {
        const status = data.subarray(0, 4).toString('latin1');
        if (status === 'FAIL') {
          done(new Error(`The adb server refused to reboot ${serial}: ${data.subarray(8).toString('utf8') || 'no reason given'}.`));
          return;
        }
        if (status !== 'OKAY') return;
        data = data.subarray(4);
        if (stage === 'transport') {
          stage = 'reboot';
          socket.write(frame('reboot:'));
        } else {
          done(null);
          return;
        }
      }
    });
    socket.on('error', (error) => done(new Error(`The adb server: ${error.message}`)));
    // The phone drops the connection as it goes down: that is the reboot having started.
    socket.on('close', () => done(stage === 'reboot' ? null : new Error(`The adb server closed the connection before rebooting ${serial}.`)));
  });
}
