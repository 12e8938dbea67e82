/**
 * The phone side of Socket.IO (`/agent`): a device credential opens the socket and the agent speaks only for
 * its device. Heartbeats keep the device's status and battery live; screenshots are stored and announced;
 * tasks given to the device are handed over as leased attempts and their results count once.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Namespace } from 'socket.io';
import { sql } from 'kysely';
import {
  AGENT_NAMESPACE,
  MAX_SCREENSHOT_BYTES,
  agentMessages,
  type Ack,
  type AgentMessageName,
  type AgentToServer,
  type ServerMessage,
  type ServerToAgent,
} from '@farm/agent-protocol';
import { settlePostOfTask, settleRunOfTask } from '@farm/workers';
import { hashToken } from '../auth/auth.queries.ts';
import { recordActivity } from '../modules/activities/activities.queries.ts';
import { toSession } from '../modules/sessions/sessions.service.ts';
import { serialize } from '../shared/serialize.ts';
import { objectPath } from '../storage/storage.ts';
import { Outbox } from './outbox.ts';
import { Pulse } from './pulse.ts';
import type { RealtimeServer } from './gateway.ts';

interface AgentData {
  deviceId: string;
  workspaceId: string;
  deviceName: string;
}

export type AgentNamespace = Namespace<AgentToServer, ServerToAgent, Record<string, never>, AgentData>;

export const deviceRoom = (deviceId: string) => `device:${deviceId}`;

export interface Agents {
  /** Hands the device's waiting tasks to its agent, if one is connected. */
  dispatchPending(workspaceId: string, deviceId: string): Promise<void>;
  /** Sends a command to the device's agent; answers whether an agent was there to hear it. */
  command(deviceId: string, name: ServerMessage<'command'>['name']): Promise<boolean>;
}

export function attachAgents(app: FastifyInstance, io: RealtimeServer): Agents {
  const { db, changes, storage } = app.ctx;
  const nsp = io.of(AGENT_NAMESPACE) as unknown as AgentNamespace;

  nsp.use((socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    if (typeof token !== 'string' || token.length > 200) return next(new Error('unauthorized'));
    db.selectFrom('deviceCredentials as c')
      .innerJoin('devices as d', 'd.id', 'c.deviceId')
      .select(['d.id', 'd.workspaceId', 'd.name'])
      .where('c.tokenHash', '=', hashToken(token))
      .executeTakeFirst()
      .then(async (device) => {
        if (!device) return next(new Error('unauthorized'));
        await db.updateTable('deviceCredentials').set({ lastUsedAt: new Date() }).where('deviceId', '=', device.id).execute();
        socket.data = { deviceId: device.id, workspaceId: device.workspaceId, deviceName: device.name };
        next();
      })
      .catch((error: unknown) => next(error instanceof Error ? error : new Error('unavailable')));
  });

  async function connectedCount(deviceId: string): Promise<number> {
    return (await nsp.in(deviceRoom(deviceId)).fetchSockets()).length;
  }

  async function updateDevice(workspaceId: string, deviceId: string, set: Record<string, unknown>, outbox: Outbox) {
    const row = await db.updateTable('devices').set(set).where('id', '=', deviceId).where('workspaceId', '=', workspaceId).returningAll().executeTakeFirst();
    if (row) outbox.add('device.updated', serialize(row));
    return row;
  }

  const agents: Agents = {
    async dispatchPending(workspaceId, deviceId) {
      if ((await connectedCount(deviceId)) === 0) return;
      const outbox = new Outbox(workspaceId);
      // Each waiting task gets a new attempt; the conditional update makes a concurrent second hand-over a no-op.
      const tasks = await db
        .updateTable('tasks')
        .set({ attempt: sql<number>`attempt + 1`, dispatchedAt: new Date() })
        .where('workspaceId', '=', workspaceId)
        .where('deviceId', '=', deviceId)
        .where('status', '=', 'pending')
        .where('dispatchedAt', 'is', null)
        .returningAll()
        .execute();
      for (const task of tasks) {
        outbox.add('task.updated', serialize(task));
        nsp.to(deviceRoom(deviceId)).emit('task.dispatch', {
          taskId: task.id,
          attempt: task.attempt,
          type: task.type,
          title: task.title,
          description: task.description,
          deadline: task.deadline?.toISOString() ?? null,
        });
      }
      outbox.flush(changes);
    },
    async command(deviceId, name) {
      if ((await connectedCount(deviceId)) === 0) return false;
      nsp.to(deviceRoom(deviceId)).emit('command', { name });
      return true;
    },
  };

  // Work given to a phone goes to its agent as soon as it is committed.
  const pulse = new Pulse(db, changes, (error) => app.log.warn({ err: error }, 'heartbeat batch failed'));
  const unsubscribe = changes.subscribe((change) => {
    if (change.event !== 'task.created' && change.event !== 'task.updated') return;
    const task = change.payload as { deviceId: string | null; status: string };
    if (task.deviceId && task.status === 'pending') {
      agents.dispatchPending(change.workspaceId, task.deviceId).catch((error: unknown) => app.log.warn({ err: error }, 'dispatch failed'));
    }
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await pulse.close().catch(() => undefined);
  });

  const handlers: { [N in AgentMessageName]: (data: AgentData, message: ReturnType<(typeof agentMessages)[N]['parse']>) => Promise<void> } = {
    async 'agent.hello'(data, message) {
      const outbox = new Outbox(data.workspaceId);
      await updateDevice(data.workspaceId, data.deviceId, { status: 'online', battery: message.battery, lastActive: new Date() }, outbox);
      await recordActivity(db, { workspaceId: data.workspaceId, userId: null, action: `${data.deviceName} connected`, deviceId: data.deviceId, type: 'success' }, undefined, outbox);
      outbox.flush(changes);
      await agents.dispatchPending(data.workspaceId, data.deviceId);
    },
    async 'agent.heartbeat'(data, message) {
      pulse.beat(data.workspaceId, { id: data.deviceId, status: message.status, battery: message.battery, lastActive: new Date() });
    },
    async 'agent.screenshot'(data, message) {
      const bytes = Buffer.from(message.data, 'base64');
      if (bytes.length === 0 || bytes.length > MAX_SCREENSHOT_BYTES) throw new Error(`screenshot must be 1 to ${MAX_SCREENSHOT_BYTES} bytes`);
      const key = randomUUID();
      await storage.write(key, bytes);
      const outbox = new Outbox(data.workspaceId);
      const capturedAt = message.capturedAt && !Number.isNaN(Date.parse(message.capturedAt)) ? new Date(message.capturedAt) : new Date();
      const shot = await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('storedObjects')
          .values({ key, workspaceId: data.workspaceId, contentType: message.mime, size: bytes.length, uploadedAt: new Date() })
          .execute();
        const session = await tx
          .updateTable('sessions')
          .set({ screenshots: sql<number>`screenshots + 1` })
          .where('deviceId', '=', data.deviceId)
          .where('endedAt', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (session) outbox.add('session.updated', toSession(session));
        return tx
          .insertInto('screenshots')
          .values({ workspaceId: data.workspaceId, deviceId: data.deviceId, sessionId: session?.id ?? null, objectKey: key, capturedAt })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
      outbox.add('screenshot.added', { deviceId: data.deviceId, sessionId: shot.sessionId, url: objectPath(key), capturedAt: shot.capturedAt.toISOString() });
      outbox.flush(changes);
    },
    async 'task.ack'(data, message) {
      const outbox = new Outbox(data.workspaceId);
      const task = await db
        .updateTable('tasks')
        .set({ status: 'in-progress', startedAt: sql<Date>`coalesce(started_at, now())` })
        .where('id', '=', message.taskId)
        .where('deviceId', '=', data.deviceId)
        .where('attempt', '=', message.attempt)
        .where('status', 'in', ['pending', 'in-progress'])
        .returningAll()
        .executeTakeFirst();
      if (task) outbox.add('task.updated', serialize(task));
      outbox.flush(changes);
    },
    async 'task.progress'() {
      // Progress is the agent's to show; the lease is kept alive by the connection itself.
    },
    async 'task.result'(data, message) {
      const outbox = new Outbox(data.workspaceId);
      await db.transaction().execute(async (tx) => {
        // Only the current attempt of an unfinished task can finish it: a repeated or late result changes nothing.
        const task = await tx
          .updateTable('tasks')
          .set({ status: message.status, completedAt: new Date() })
          .where('id', '=', message.taskId)
          .where('deviceId', '=', data.deviceId)
          .where('attempt', '=', message.attempt)
          .where('status', 'in', ['pending', 'in-progress'])
          .returningAll()
          .executeTakeFirst();
        if (!task) return;
        outbox.add('task.updated', serialize(task));
        const post = await settlePostOfTask(tx, task.id, message.status);
        if (post) outbox.add('post.updated', serialize(post));
        await settleRunOfTask(tx, task.id, message.status);
        await recordActivity(
          tx,
          {
            workspaceId: data.workspaceId,
            userId: null,
            action: `${data.deviceName} ${message.status === 'completed' ? 'completed' : 'failed'} "${task.title}"${message.error ? `: ${message.error}` : ''}`,
            deviceId: data.deviceId,
            type: message.status === 'completed' ? 'success' : 'error',
          },
          { action: `task.${message.status}`, entityType: 'task', entityId: task.id, data: { attempt: message.attempt } },
          outbox,
        );
      });
      outbox.flush(changes);
    },
  };

  nsp.on('connection', (socket) => {
    const data = socket.data;
    // One live connection per phone: a newer one replaces the older.
    void nsp
      .in(deviceRoom(data.deviceId))
      .fetchSockets()
      .then((others) => {
        for (const other of others) if (other.id !== socket.id) other.disconnect(true);
        return socket.join(deviceRoom(data.deviceId));
      });

    for (const name of Object.keys(agentMessages) as AgentMessageName[]) {
      socket.on(name, (raw: unknown, ack?: (answer: Ack) => void) => {
        const parsed = agentMessages[name].safeParse(raw);
        if (!parsed.success) {
          ack?.({ ok: false, error: parsed.error.issues.map((issue) => `${issue.path.join('.') || name}: ${issue.message}`).join('; ') });
          return;
        }
        (handlers[name] as (d: AgentData, m: unknown) => Promise<void>)(data, parsed.data).then(
          () => ack?.({ ok: true }),
          (error: unknown) => {
            app.log.warn({ err: error, message: name, deviceId: data.deviceId }, 'agent message failed');
            ack?.({ ok: false, error: error instanceof Error ? error.message : 'failed' });
          },
        );
      });
    }

    socket.on('disconnect', () => {
      void (async () => {
        if ((await connectedCount(data.deviceId)) > 0) return;
        // A last heartbeat still gathering must not bring the phone back online after it left.
        await pulse.flush();
        const outbox = new Outbox(data.workspaceId);
        await updateDevice(data.workspaceId, data.deviceId, { status: 'offline', lastActive: new Date() }, outbox);
        // The lease ends with the connection: unfinished work goes back to waiting, for the next attempt.
        const released = await db
          .updateTable('tasks')
          .set({ status: 'pending', dispatchedAt: null })
          .where('deviceId', '=', data.deviceId)
          .where('status', 'in', ['pending', 'in-progress'])
          .where('dispatchedAt', 'is not', null)
          .returningAll()
          .execute();
        for (const task of released) outbox.add('task.updated', serialize(task));
        await recordActivity(db, { workspaceId: data.workspaceId, userId: null, action: `${data.deviceName} disconnected`, deviceId: data.deviceId, type: 'warning' }, undefined, outbox);
        outbox.flush(changes);
      })().catch((error: unknown) => app.log.warn({ err: error }, 'agent disconnect handling failed'));
    });
  });

  return agents;
}
