/**
 * A redis-server of a test's own, on a port of its own, that the test may pause (SIGSTOP: connected but silent,
 * as a Redis under load), resume or stop, without touching the shared Redis others use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';

/** Ports 6400-6419 are this suite's: each test file takes one per database project, so parallel runs never meet. */
export function redisPort(slot: number): number {
  return 6400 + slot + (process.env.TEST_DB === 'postgres' ? 10 : 0);
}

export interface OwnRedis {
  url: string;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(port: number): Promise<OwnRedis> {
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await ping(port)) break;
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited (${child.exitCode}): is the port taken?`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      if (stopped) return;
      stopped = true;
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
