import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Me } from '@farm/contracts';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { testConfig } from './config.ts';
import { createChangeFeed, type Change } from '../../src/events/changes.ts';
import { createTestDatabase } from './database.ts';
import type { Database } from '@farm/sql';

/** Another API instance over the same database (and the same Redis, when the config names one). */
export async function buildInstance(database: Database, config: Config): Promise<FastifyInstance> {
  const app = await buildApp({ config, database });
  await app.ready();
  return app;
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  db: FastifyInstance['ctx']['db'];
  database: Database;
  /** Every change the app announced, in order. */
  changes: Change[];
  close(): Promise<void>;
}

export async function buildTestApp(overrides: Partial<Config> = {}, options: { logStream?: NodeJS.WritableStream } = {}): Promise<TestApp> {
  const { database, drop } = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'farm-test-'));
  const config = testConfig(dataDir, { logLevel: (process.env.TEST_LOG as 'silent') ?? 'silent', ...overrides });
  const feed = createChangeFeed();
  const changes: Change[] = [];
  feed.subscribe((change) => changes.push(change));
  const app = await buildApp({ config, database, changes: feed, ...(options.logStream ? { logStream: options.logStream } : {}) });
  await app.ready();
  return {
    app,
    config,
    db: database.db,
    database,
    changes,
    async close() {
      await app.close();
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** A browser of the console: keeps its session cookie between calls. */
export class Client {
  constructor(
    readonly app: FastifyInstance,
    public cookie?: string,
    public user?: Me,
  ) {}

  async request<T = any>(method: Method, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const response = await this.app.inject({
      method,
      url,
      headers: {
        ...(this.cookie ? { cookie: `sid=${this.cookie}` } : {}),
        ...(body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
    });
    const setCookie = response.cookies.find((cookie) => cookie.name === 'sid');
    if (setCookie) this.cookie = setCookie.value || undefined;
    const text = response.body;
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: leave the text
    }
    return { status: response.statusCode, body: parsed as T, headers: response.headers };
  }

  get<T = any>(url: string) {
    return this.request<T>('GET', url);
  }
  post<T = any>(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, body ?? {}, headers);
  }
  patch<T = any>(url: string, body: unknown) {
    return this.request<T>('PATCH', url, body);
  }
  put<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', url, body, headers);
  }
  delete<T = any>(url: string) {
    return this.request<T>('DELETE', url);
  }
}

let counter = 0;
export function uniqueEmail(prefix = 'person'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}@example.test`;
}

export async function signUp(
  app: FastifyInstance,
  input: { role?: 'operator' | 'va'; name?: string; email?: string; password?: string; inviteToken?: string } = {},
): Promise<Client> {
  const client = new Client(app);
  const answer = await client.post<{ user: Me }>('/api/auth/signup', {
    email: input.email ?? uniqueEmail(input.role ?? 'operator'),
    password: input.password ?? 'correct horse battery',
    name: input.name ?? (input.role === 'va' ? 'Vera Assistant' : 'Otto Operator'),
    role: input.role ?? 'operator',
    ...(input.inviteToken ? { inviteToken: input.inviteToken } : {}),
  });
  if (answer.status !== 201) throw new Error(`signup failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  client.user = answer.body.user;
  return client;
}

/** A VA who joined the operator's workspace through an invitation. */
export async function inviteVa(app: FastifyInstance, operator: Client, name = 'Vera Assistant'): Promise<Client> {
  const invitation = await operator.post<{ invitation: { token: string } }>('/api/invitations', { role: 'va' });
  if (invitation.status !== 201) throw new Error(`invitation failed: ${invitation.status}`);
  return signUp(app, { role: 'va', name, inviteToken: invitation.body.invitation.token });
}

/** An operator and a VA of one workspace, plus an operator of another. */
export async function people(app: FastifyInstance) {
  const operator = await signUp(app, { role: 'operator', name: 'Olga Operator' });
  const va = await inviteVa(app, operator);
  const stranger = await signUp(app, { role: 'operator', name: 'Sam Stranger' });
  const anonymous = new Client(app);
  return { operator, va, stranger, anonymous };
}
