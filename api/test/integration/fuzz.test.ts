/**
 * Property-based fuzzing of every route: for each operation of the OpenAPI document (generated from the routes'
 * zod schemas) a valid call from the route table is corrupted with generated hostile values, field by field
 * (the field's own bounds overstepped, wrong types, NUL, lone surrogates, dates out of range, huge and deep
 * values, prototype keys), in the body, the query and the path. Every answer must be a 4xx or a success, never a
 * 5xx; a refusal must be the validation's own sentence (never a database backstop) and write nothing.
 *
 * Fixed seed and bounded count (FUZZ_SEED, FUZZ_RUNS per route) so that CI runs the same requests each time. The
 * refusals are the validation's, answered before any query: PostgreSQL, the production database, takes the full
 * count; the embedded database (half as fast here) takes a third of it, from the same seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import { PG_CODES } from '../../src/errors.ts';
import { buildTestApp, Client, people, signUp, uniqueEmail, type Answer, type TestApp } from '../helpers/app.ts';
import { PNG, uploadImage } from '../helpers/factories.ts';
import { buildApk } from '../helpers/apk.ts';
import { readRoutes, routeKey, writeRoutes, type Crew } from '../helpers/route-table.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.TEST_DB === 'postgres' ? 24 : 8));

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  nullable?: boolean;
  anyOf?: JsonSchema[];
}
interface Operation {
  parameters?: { in: 'query' | 'path'; name: string; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

let t: TestApp;
let crew: Crew & { anonymous: Client };
let operations: { method: string; path: string; operation: Operation }[] = [];
/** Counts for the record: requests sent, answers by class. */
const tally = { requests: 0, fiveHundreds: 0, refusals: 0, successes: 0 };

beforeAll(async () => {
  t = await buildTestApp({ runWorkers: false, uploadsPendingMax: 100_000 });
  const cast = await people(t.app);
  crew = { operator: cast.operator, va: cast.va, anonymous: cast.anonymous };
  const docs = await cast.operator.get<{ paths: Record<string, Record<string, Operation>> }>('/api/docs/json');
  operations = Object.entries(docs.body.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
});
afterAll(async () => {
  console.log(
    `fuzz: ${tally.requests} hostile requests on ${operations.length} operations (seed ${SEED}, ${RUNS} per operation): ${tally.refusals} refused, ${tally.successes} accepted, ${tally.fiveHundreds} answered 5xx`,
  );
  await t?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Hostile values

const deep = (levels: number): unknown => (levels === 0 ? 'bottom' : { next: deep(levels - 1) });
const UUID = '6f0c1c52-5d43-4c1e-9d3f-0b0b0b0b0b0b';

/** Values that have broken servers: each is tried against every field. */
const POOL: unknown[] = [
  null,
  true,
  0,
  -1,
  0.5,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  1e300,
  -1e300,
  Number.MIN_VALUE,
  '',
  ' ',
  '   \t\n  ',
  '\u0000',
  `a\u0000b`,
  '\ud800',
  '\udfff\ud800',
  '\u202eevil',
  '😀'.repeat(300),
  'x'.repeat(100_000),
  "'; drop table devices; --",
  '%00',
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  // Addresses the server or the farm PC must never fetch (post media, profile pictures).
  'http://169.254.169.254/latest/meta-data/iam/',
  ['http://127.0.0.1:6379/', '/api/objects/00000000-0000-0000-0000-000000000000'],
  'file:///etc/passwd',
  `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`,
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '99999-01-01',
  '0000-01-01',
  '1969-12-31T23:59:59Z',
  '2001-01-01T00:00:00Z',
  '2026-02-30T25:61:61Z',
  '1e300',
  'NaN',
  'Infinity',
  '-0',
  UUID,
  '00000000-0000-0000-0000-000000000000',
  'none',
  'me',
  [],
  [null],
  ['\u0000'],
  [''],
  Array.from({ length: 1000 }, (_, index) => `item ${index}`),
  {},
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
  deep(40),
  [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['deep']]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
];

/** Values aimed at one field's own schema: just past its bounds, or of its kind but wrong. */
function aimed(schema: JsonSchema | undefined): unknown[] {
  if (!schema) return [];
  const values: unknown[] = [];
  if (schema.maxLength !== undefined) values.push('y'.repeat(schema.maxLength + 1), `${'y'.repeat(Math.max(0, schema.maxLength - 1))}\u0000`);
  if (schema.minLength !== undefined && schema.minLength > 0) values.push(' '.repeat(schema.minLength + 1));
  if (schema.maximum !== undefined) values.push(schema.maximum + 1, schema.maximum + 0.5);
  if (schema.minimum !== undefined) values.push(schema.minimum - 1, schema.minimum - 0.5);
  if (schema.maxItems !== undefined) values.push(Array.from({ length: schema.maxItems + 1 }, () => 'z'));
  if (schema.enum) values.push(...schema.enum.map((value) => `${String(value).toUpperCase()} `), schema.enum.join('|'));
  if (schema.items) values.push(...aimed(schema.items).map((value) => [value]));
  if (schema.type === 'boolean') values.push('true', 1, 'yes');
  if (schema.type === 'integer' || schema.type === 'number') values.push('12', 1.000001, Number.MAX_SAFE_INTEGER);
  return values;
}

function hostile(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const own = aimed(schema);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...POOL) },
    ...(own.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...own) }] : []),
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

/** Query and path values travel as text: hostile text, its bytes percent-encoded (lone surrogates as U+FFFD). */
const hostileText = (schema: JsonSchema | undefined): fc.Arbitrary<string> =>
  hostile(schema).map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')));
const encode = (text: string): string => [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

// ---------------------------------------------------------------------------------------------------------------
// What a refusal may not do

/**
 * The product's rows, except what a refusal rightly moves: a session's last-seen time, a login step's tries, and the
 * audit log's record of a failed sign-in (written without holding the answer, so it may land a moment later).
 * A row is read as its version, where it lies and the transaction that wrote it (ctid, xmin): every insert, update
 * and delete makes or removes one, even one that writes the same values, and reading it costs nothing, where the
 * rows' text (a recipe's steps are tens of kilobytes) cost most of each request. The two tables whose rows a refusal
 * may touch are read by their columns that must not move.
 */
async function digest(): Promise<string> {
  digestQuery ??= await digestStatement();
  const { rows } = await digestQuery.execute(t.db);
  return rows.map((row) => `${row.name}:${row.hash ?? ''}`).join(';');
}

/** The digest in one statement, a row a table (listed once: no request makes a table), one round trip a check. */
let digestQuery: RawBuilder<{ name: string; hash: string | null }> | undefined;
async function digestStatement(): Promise<RawBuilder<{ name: string; hash: string | null }>> {
  const { rows } = await sql<{
    name: string;
  }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(t.db);
  const parts = rows
    .filter(({ name }) => name !== 'schema_migrations')
    .map(({ name }, index) => {
      const projection =
        name === 'auth_sessions' || name === 'login_challenges' ? sql`(t.id, t.token_hash, t.user_id, t.expires_at)::text` : sql`(t.ctid, t.xmin)::text`;
      const order = name === 'auth_sessions' || name === 'login_challenges' ? projection : sql`t.ctid`;
      const counted = name === 'audit_log' ? sql`t.action <> 'auth.login_failed'` : sql`true`;
      return sql`SELECT ${sql.lit(index)} AS position, ${sql.lit(name)} AS name, md5(coalesce(string_agg(${projection}, '|' ORDER BY ${order}) FILTER (WHERE ${counted}), '')) AS hash FROM ${sql.table(name)} t`;
    });
  return sql<{ name: string; hash: string | null }>`SELECT name, hash FROM (${sql.join(parts, sql` UNION ALL `)}) digest ORDER BY position`;
}

const backstops = new Set(Object.values(PG_CODES).map((code) => code.message));
let last: string | undefined;

async function check(what: string, answer: Answer): Promise<void> {
  tally.requests += 1;
  const summary = `${what} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}`;
  if (answer.status >= 500) tally.fiveHundreds += 1;
  expect(answer.status, summary).toBeLessThan(500);
  const now = await digest();
  if (answer.status >= 400) {
    tally.refusals += 1;
    const error = (answer.body as { error?: unknown } | undefined)?.error;
    expect(typeof error, summary).toBe('string');
    expect(backstops.has(error as string), `${summary}: answered by a database backstop, not by validation`).toBe(false);
    expect(error as string, summary).toMatch(/^[A-Z]/);
    expect(error as string, summary).not.toMatch(/Invalid input|Invalid option|Too big|Too small|expected .*received/);
    expect(now, `${summary}: a refusal wrote to the database`).toBe(last);
  } else tally.successes += 1;
  last = now;
}

// ---------------------------------------------------------------------------------------------------------------
// Calls

interface Base {
  client: Client;
  url: string;
  body?: unknown;
  contentType?: string;
}

/** A valid call of each operation, from the route table, or for routes outside its matrix, here. */
let fuzzApps = 0;

async function baseCall(method: string, path: string): Promise<Base | undefined> {
  const key = routeKey(method, path);
  const write = writeRoutes.find((route) => routeKey(route.method, route.path) === key);
  if (write) {
    const call = await write.setup(crew);
    return { client: crew.operator, url: call.url, body: call.body };
  }
  const read = readRoutes.find((route) => method === 'GET' && route.path === path);
  if (read) return { client: read.access === 'public' ? crew.anonymous : crew.operator, url: await read.setup(crew) };
  switch (key) {
    case 'POST /api/auth/signup':
      return {
        client: new Client(t.app),
        url: '/api/auth/signup',
        body: { email: uniqueEmail('fuzz'), password: 'correct horse battery', name: 'Fay Fuzz', role: 'operator' },
      };
    case 'POST /api/auth/login':
      return { client: new Client(t.app), url: '/api/auth/login', body: { email: crew.operator.user!.email, password: 'not the password' } };
    case 'POST /api/auth/logout':
      return { client: await signUp(t.app), url: '/api/auth/logout' };
    case 'POST /api/auth/login/two-factor':
      return { client: new Client(t.app), url: '/api/auth/login/two-factor', body: { challenge: 'made-up', code: '123456' } };
    case 'POST /api/auth/login/two-factor/setup':
      return { client: new Client(t.app), url: '/api/auth/login/two-factor/setup', body: { challenge: 'made-up' } };
    case 'POST /api/auth/password-reset': {
      const reset = await crew.operator.post<{ token: string }>(`/api/users/${crew.va.user!.id}/password-reset`);
      return { client: new Client(t.app), url: '/api/auth/password-reset', body: { token: reset.body.token, password: 'a fuzzed password' } };
    }
    case 'POST /api/auth/two-factor/setup':
      return { client: crew.operator, url: '/api/auth/two-factor/setup' };
    case 'DELETE /api/auth/sessions/{id}': {
      const other = new Client(t.app);
      await other.post('/api/auth/login', { email: crew.operator.user!.email, password: 'correct horse battery' });
      const sessions = await crew.operator.get<{ id: string; current: boolean }[]>('/api/auth/sessions');
      return { client: crew.operator, url: `/api/auth/sessions/${sessions.body.find((row) => !row.current)?.id ?? ''}` };
    }
    case 'POST /api/auth/notices/seen':
      return { client: crew.operator, url: path, body: { ids: ['6f1c0c43-58b1-4b8e-9d1f-0d6f6f0d1a11'] } };
    case 'POST /api/auth/two-factor/enable':
    case 'POST /api/auth/two-factor/recovery-codes':
      return { client: crew.operator, url: path, body: { code: '123456' } };
    case 'POST /api/auth/two-factor/disable':
      return { client: crew.operator, url: path, body: { password: 'correct horse battery', code: '123456' } };
    case 'GET /api/agent/media/{id}':
      // A phone's read: without its credential every variation is refused.
      return { client: new Client(t.app), url: `/api/agent/media/${(await uploadImage(crew.operator)).split('/').pop()!}` };
    case 'POST /api/agent/enroll': {
      const device = await crew.operator.post<{ id: string }>('/api/devices', { name: 'Fuzzed phone' });
      const code = await crew.operator.post<{ code: string }>(`/api/devices/${device.body.id}/enrollment`);
      return { client: new Client(t.app), url: '/api/agent/enroll', body: { code: code.body.code, serial: 'FUZZ-1', model: 'Pixel 8' } };
    }
    case 'GET /api/agent/apps/{id}':
      // A host's read: without its credential every variation is refused.
      return { client: new Client(t.app), url: '/api/agent/apps/6f1c0c43-58b1-4b8e-9d1f-0d6f6f0d1a11' };
    case 'POST /api/apps':
      fuzzApps += 1;
      return {
        client: crew.operator,
        url: `/api/apps?fileName=fuzz-${fuzzApps}.apk`,
        body: buildApk({ package: `com.example.fuzz${fuzzApps}`, versionCode: fuzzApps }),
        contentType: 'application/octet-stream',
      };
    case 'POST /api/import/posts':
      return { client: crew.operator, url: path, body: Buffer.from('Account,Caption,Scheduled At\n@nobody,Hello,\n'), contentType: 'text/csv' };
    case 'POST /api/import/accounts':
      return { client: crew.operator, url: path, body: Buffer.from('Username,Platform,Device,Followers\nfuzzed,tiktok,,12\n'), contentType: 'text/csv' };
    case 'PUT /api/objects/{id}': {
      const reserved = await crew.operator.post<{ url: string }>('/api/objects/upload', {});
      return { client: crew.anonymous, url: reserved.body.url, body: PNG, contentType: 'image/png' };
    }
    default:
      return undefined;
  }
}

type Mutation =
  | { kind: 'fields'; changes: [string, unknown][] }
  | { kind: 'body'; body: unknown }
  | { kind: 'raw'; text: string; contentType: string }
  | { kind: 'query'; changes: [string, string][] }
  | { kind: 'path'; value: string };

function mutations(operation: Operation, base: Base): fc.Arbitrary<Mutation> {
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const properties = bodySchema?.properties ?? bodySchema?.anyOf?.find((option) => option.properties)?.properties ?? {};
  const sample = base.body && typeof base.body === 'object' && !Buffer.isBuffer(base.body) ? (base.body as Record<string, unknown>) : {};
  const fields = [...new Set([...Object.keys(properties), ...Object.keys(sample)])];
  const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const hasPath = (operation.parameters ?? []).some((parameter) => parameter.in === 'path');
  const takesJson = !Buffer.isBuffer(base.body) && base.url.startsWith('/api/') && !['GET', 'DELETE'].includes(operationMethod(base));
  const options: { weight: number; arbitrary: fc.Arbitrary<Mutation> }[] = [];
  if (fields.length > 0 && takesJson) {
    const change = fc.constantFrom(...fields).chain((field) => fc.tuple(fc.constant(field), hostile(properties[field])));
    options.push({ weight: 6, arbitrary: fc.array(change, { minLength: 1, maxLength: 4 }).map((changes) => ({ kind: 'fields' as const, changes })) });
  }
  if (takesJson) {
    options.push({ weight: 1, arbitrary: hostile(undefined).map((body) => ({ kind: 'body' as const, body })) });
    options.push({
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
        )
        .map(([text, contentType]) => ({
          kind: 'raw' as const,
          text,
          contentType,
        })),
    });
  }
  if (base.contentType === 'text/csv') {
    // A file of the import's columns with hostile cells, and files that are not CSV at all.
    const header = Buffer.isBuffer(base.body) ? base.body.toString('utf8').split('\n')[0]! : '';
    const cell = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('"', '""', '"a,b"', '=cmd()', '\u0000', '-1', '1e999', '2099-13-45', '@', ''),
    );
    const row = fc
      .array(cell, { minLength: 0, maxLength: 6 })
      .map((cells) => cells.map((value) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)).join(','));
    options.push({
      weight: 4,
      arbitrary: fc
        .array(row, { minLength: 0, maxLength: 5 })
        .map((rows) => ({ kind: 'raw' as const, text: [header, ...rows].join('\n'), contentType: 'text/csv' })),
    });
    options.push({
      weight: 1,
      arbitrary: fc.string({ unit: 'binary', maxLength: 120 }).map((text) => ({ kind: 'raw' as const, text, contentType: 'text/csv' })),
    });
  }
  const queryNames = query.map((parameter) => parameter.name);
  const queryChange = fc
    .oneof(
      ...(queryNames.length > 0 ? [fc.constantFrom(...queryNames)] : []),
      fc.constantFrom('limit', 'cursor', 'from', 'to', 'search', 'status', 'token', 'wall'),
    )
    .chain((name) => fc.tuple(fc.constant(name), hostileText(query.find((parameter) => parameter.name === name)?.schema)));
  options.push({
    weight: queryNames.length > 0 ? 3 : 1,
    arbitrary: fc.array(queryChange, { minLength: 1, maxLength: 3 }).map((changes) => ({ kind: 'query' as const, changes })),
  });
  if (hasPath) options.push({ weight: 2, arbitrary: hostileText(undefined).map((value) => ({ kind: 'path' as const, value })) });
  return fc.oneof(...options);
}

let currentMethod = 'GET';
const operationMethod = (_base: Base) => currentMethod;

async function send(method: string, path: string, base: Base, mutation: Mutation): Promise<Answer> {
  const [pathPart, queryPart = ''] = base.url.split('?');
  let url = pathPart!;
  const params = queryPart ? queryPart.split('&') : [];
  let body: unknown = base.body;
  let payload: string | Buffer | undefined;
  let contentType = base.contentType ?? (body === undefined ? undefined : 'application/json');
  switch (mutation.kind) {
    case 'fields': {
      const merged: Record<string, unknown> = { ...(body as Record<string, unknown> | undefined) };
      for (const [field, value] of mutation.changes) merged[field] = value;
      body = merged;
      contentType = 'application/json';
      break;
    }
    case 'body':
      body = mutation.body;
      contentType = 'application/json';
      break;
    case 'raw':
      payload = mutation.text;
      contentType = mutation.contentType;
      break;
    case 'query':
      for (const [name, value] of mutation.changes) params.push(`${encodeURIComponent(name)}=${encode(value)}`);
      break;
    case 'path': {
      // The route's id segments (uuids) are replaced, wherever they are.
      url = url.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, encode(mutation.value) || '%20');
      if (path.includes('{token}')) url = url.replace(/[^/]+$/, encode(mutation.value) || '%20');
      break;
    }
  }
  if (payload === undefined && body !== undefined) payload = Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const full = params.length > 0 ? `${url}?${params.join('&')}` : url;
  const response = await t.app.inject({
    method: method as 'GET',
    url: full,
    headers: {
      ...(base.client.cookie ? { cookie: `sid=${base.client.cookie}` } : {}),
      ...(contentType && payload !== undefined ? { 'content-type': contentType } : {}),
    },
    ...(payload === undefined ? {} : { payload }),
  });
  let parsed: unknown = response.body;
  try {
    parsed = response.body ? JSON.parse(response.body) : undefined;
  } catch {
    // not JSON: a file or a page
  }
  return { status: response.statusCode, body: parsed, headers: response.headers };
}

describe('every route under hostile input', () => {
  it('lists the operations it fuzzes: all of them', async () => {
    const missing: string[] = [];
    for (const { method, path } of operations) if (!(await baseCall(method, path))) missing.push(routeKey(method, path));
    expect(missing).toEqual([]);
    expect(operations.length).toBeGreaterThan(70);
  });

  it('never answers 5xx, and a refusal names the problem and writes nothing', { timeout: 900_000 }, async () => {
    last = await digest();
    for (const [index, { method, path, operation }] of operations.entries()) {
      currentMethod = method;
      const base = await baseCall(method, path);
      if (!base) continue;
      last = await digest();
      await fc.assert(
        fc.asyncProperty(mutations(operation, base), async (mutation) => {
          await check(`${method} ${path} ${JSON.stringify(mutation).slice(0, 200)}`, await send(method, path, base, mutation));
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
      );
    }
    expect(tally.fiveHundreds).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
