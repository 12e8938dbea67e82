/**
 * Commands a Redis client sends without anyone waiting for them: ioredis subscribes a subscriber's channels again
 * after a reconnect, and the Socket.IO adapter keeps a closing socket's session with a SET and sends its short-lived
 * messages with a PUBLISH. None of them handles the answer. If the client is closed before the answer comes (an
 * instance stopping while Redis is away, or just back), the command fails with "Connection is closed", which,
 * unhandled, ends the process with an error in the middle of a graceful stop.
 */
import type { Redis } from 'ioredis';

type Command = 'set' | 'publish' | 'subscribe' | 'psubscribe';

/**
 * Gives the client's `commands` a handler that logs their failure, whoever sends them; each still returns the same
 * promise, so a caller that waits sees the failure as before.
 */
export function logDroppedFailures(client: Redis, commands: readonly Command[], warn: (error: unknown, command: Command) => void): void {
  for (const command of commands) {
    const send = (client[command] as (...args: unknown[]) => Promise<unknown>).bind(client);
    Object.assign(client, {
      [command]: (...args: unknown[]) => {
        const answer = send(...args);
        answer.catch((error: unknown) => warn(error, command));
        return answer;
      },
    });
  }
}

/** The same for every copy the client makes with `duplicate()` (the Socket.IO adapter's subscriber is one). */
export function logDroppedFailuresOfCopies(client: Redis, commands: readonly Command[], warn: (error: unknown, command: Command) => void): void {
  const duplicate = client.duplicate.bind(client);
  Object.assign(client, {
    duplicate: (...args: Parameters<Redis['duplicate']>) => {
      const copy = duplicate(...args);
      logDroppedFailures(copy, commands, warn);
      return copy;
    },
  });
}
