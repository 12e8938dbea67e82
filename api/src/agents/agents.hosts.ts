/**
 * A farm host's own (control) connection on /agent, and what the rest of the API asks of hosts through it. The host
 * says hello with what it can do and joins the rooms of those features; while it is open the host shows connected in
 * Settings; its fleet settings are sent as it connects and whenever they change. Each message it sends after its hello
 * is parsed and answered by the feature that owns it (`HostMessages`, composed at the top), and the features hear of
 * its hello (`hostReady`).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Socket } from 'socket.io';
import { fleetHostMessages, hostMessages, type AppJob, type FleetHostMessageName } from '@farm/agent-protocol';
import { PHONE_SETTINGS_FEATURE, phoneSettingsAnswer, type PhoneSettingsAnswer, type PhoneSettingsRequest } from '@farm/agent-protocol/fleet';
import type { Db } from '../shared/types.ts';
import type { AgentFeatures, HostHandler } from './agents.features.ts';
import { type AgentNamespace, type AgentSocket, type Answer, hostControlRoom, hostFeatureRoom, hostRoom, refused } from './agents.namespace.ts';
import { type AgentHost, hostSettings, touchHost } from './agents.hosts.queries.ts';

/** How long a host has to say it took an app job (it answers before downloading). */
const APP_JOB_ACK_MS = 15_000;

/** The hosts connected to this instance, and what is asked of any host wherever it is connected. */
export class HostLinks {
  constructor(
    private readonly nsp: AgentNamespace,
    private readonly db: Db,
    private readonly features: Pick<AgentFeatures, 'hostMessages' | 'hooks'>,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** A host's control connection opened here. */
  connect(socket: AgentSocket, host: AgentHost): void {
    void socket.join([hostRoom(host.id), hostControlRoom(host.id)]);
    this.touch(host);
    socket.on('host.hello', (raw: unknown, ack?: Answer) => this.onHello(socket, host, raw, ack));
    socket.on('disconnect', () => this.touch(host));
    for (const name of Object.keys(fleetHostMessages) as FleetHostMessageName[]) this.route(socket, host, name);
    void hostSettings(this.db, host.id).then(
      (settings) => (socket as unknown as Socket).emit('host.settings', settings),
      () => undefined,
    );
  }

  private onHello(socket: AgentSocket, host: AgentHost, raw: unknown, ack: Answer | undefined): void {
    const parsed = hostMessages['host.hello'].safeParse(raw);
    if (!parsed.success) {
      ack?.(refused('host.hello', parsed.error));
      return;
    }
    const features = parsed.data.features ?? [];
    // What it can do is kept with its connection, for whichever instance asks (`setPhoneSettings`).
    if (socket.data.kind === 'host') socket.data.features = features;
    this.touch(host);
    // Only a host that says it can do a thing is asked to (`host-apps:` gets app jobs): older ones work as they did.
    void Promise.resolve(socket.join(features.map((feature) => hostFeatureRoom(host.id, feature))))
      .then(() => this.ready(host, features))
      .catch((error: unknown) => this.log.warn({ err: error, hostId: host.id }, 'host hello: its features were not set up'));
    ack?.({ ok: true, hostId: host.id, hostName: host.name });
  }

  /** The features hear of the host's hello, in turn; one that fails does not keep the others from hearing. */
  private async ready(host: AgentHost, features: readonly string[]): Promise<void> {
    for (const hooks of this.features.hooks) {
      await hooks.hostReady?.(host, features).catch((error: unknown) => this.log.warn({ err: error, hostId: host.id }, 'host hello: a feature failed'));
    }
  }

  /** One message of the host's: parsed, stored by the feature that answers it, and acknowledged once stored. */
  private route<N extends FleetHostMessageName>(socket: AgentSocket, host: AgentHost, name: N): void {
    const handler = this.features.hostMessages[name] as HostHandler<N>;
    (socket as unknown as Socket).on(name as string, (raw: unknown, ack?: Answer) => {
      const parsed = fleetHostMessages[name].safeParse(raw);
      if (!parsed.success) {
        ack?.(refused(name, parsed.error));
        return;
      }
      handler(host, parsed.data as Parameters<HostHandler<N>>[1]).then(
        () => ack?.({ ok: true }),
        (error: unknown) => {
          this.log.warn({ err: error, hostId: host.id, event: name }, 'fleet report not stored');
          ack?.({ ok: false, error: 'Not stored; send it again' });
        },
      );
    });
  }

  private touch(host: AgentHost): void {
    void touchHost(this.db, host.id).catch(() => undefined);
  }

  /** New fleet settings for a host: sent to its control connection wherever it is. */
  sendSettings(hostId: string, settings: unknown): void {
    (this.nsp as unknown as Namespace).to(hostControlRoom(hostId)).emit('host.settings', settings);
  }

  async setPhoneSettings(
    hostId: string,
    request: PhoneSettingsRequest,
    timeoutMs: number,
  ): Promise<PhoneSettingsAnswer | 'offline' | 'unsupported' | 'no answer'> {
    const sockets = await this.nsp.in(hostControlRoom(hostId)).fetchSockets();
    if (sockets.length === 0) return 'offline';
    const able = sockets.find((socket) => socket.data.kind === 'host' && socket.data.features?.includes(PHONE_SETTINGS_FEATURE));
    if (!able) return 'unsupported';
    try {
      const answers: unknown = await (this.nsp as unknown as Namespace).to(able.id).timeout(timeoutMs).emitWithAck('host.phone-settings', request);
      const parsed = phoneSettingsAnswer.safeParse(Array.isArray(answers) ? answers[0] : answers);
      return parsed.success ? parsed.data : 'no answer';
    } catch {
      return 'no answer';
    }
  }

  async sendAppJob(hostId: string, job: AppJob): Promise<'taken' | 'outdated' | 'offline'> {
    const nsp = this.nsp as unknown as Namespace;
    let answers: { ok?: unknown }[] = [];
    try {
      answers = (await nsp.to(hostFeatureRoom(hostId, 'apps')).timeout(APP_JOB_ACK_MS).emitWithAck('app.run', job)) as { ok?: unknown }[];
    } catch {
      return 'offline';
    }
    if (answers.some((answer) => answer?.ok === true)) return 'taken';
    if (answers.length > 0) return 'offline';
    return (await this.connected(hostId)) ? 'outdated' : 'offline';
  }

  /** The host's control connection is open, on any instance. */
  async connected(hostId: string): Promise<boolean> {
    return (await this.nsp.in(hostControlRoom(hostId)).fetchSockets()).length > 0;
  }

  /** Closes a host's connection and its phones' (it was revoked). */
  disconnect(hostId: string): void {
    this.nsp.in(hostRoom(hostId)).disconnectSockets(true);
  }
}
