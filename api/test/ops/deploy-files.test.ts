/**
 * Docker does not run on the machines that test this: the container files are checked by reading them. The compose
 * file's services and their settings, the Dockerfile's stages, and every file either of them names exists or is
 * made by the build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Service {
  build?: unknown;
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

/** The Dockerfile as stages: name and instructions (continuation lines joined). */
function stages(text: string): { name: string; from: string; lines: string[] }[] {
  const result: { name: string; from: string; lines: string[] }[] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  for (const line of logical) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from) result.push({ from: from[1]!, name: from[2] ?? String(result.length), lines: [] });
    else result.at(-1)?.lines.push(line);
  }
  return result;
}
const dockerfile = stages(read('Dockerfile'));

describe('docker-compose.yml', () => {
  it('has the services of the distributed mode', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'postgres', 'proxy', 'redis', 'workers']);
    expect(Object.keys(compose.volumes).sort()).toEqual(['files', 'pgdata', 'redisdata']);
  });

  it('runs Redis as BullMQ requires: no eviction, append-only file', () => {
    const command = services.redis!.command as string[];
    expect(command.join(' ')).toContain('--maxmemory-policy noeviction');
    expect(command.join(' ')).toContain('--appendonly yes');
    expect(services.redis!.healthcheck?.test).toBeDefined();
  });

  it('runs two API instances without jobs and two workers, from one build, each with a health check', () => {
    for (const name of ['api', 'workers']) {
      const service = services[name]!;
      expect(service.build).toBe('.');
      expect(service.deploy?.replicas).toBe(2);
      expect(service.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(service.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(service.environment?.NODE_ENV).toBe('production');
      expect(service.depends_on?.postgres?.condition).toBe('service_healthy');
      expect(service.depends_on?.redis?.condition).toBe('service_healthy');
      expect(service.healthcheck?.test.join(' ')).toContain('/readyz');
    }
    expect(services.api!.environment?.RUN_WORKERS).toBe('0');
    expect(services.api!.volumes).toContain('files:/data');
    expect(services.workers!.command).toEqual(['node', '--max-semi-space-size=32', '--conditions=compiled', 'workers/dist/main.js']);
    expect(services.workers!.healthcheck?.test.join(' ')).toContain(`:${services.workers!.environment?.HEALTH_PORT}/readyz`);
  });

  it('puts nginx in front with WebSocket upgrades and the same instance per client', () => {
    const proxy = services.proxy!;
    expect(proxy.image).toMatch(/^nginx:/);
    const mount = proxy.volumes!.find((volume) => volume.includes('nginx.conf'))!;
    const file = mount.split(':')[0]!.replace(/^\.\//, '');
    expect(existsSync(join(root, file))).toBe(true);
    const conf = read(file);
    expect(conf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(conf).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    expect(conf).toMatch(/upstream console \{\s*ip_hash;/);
    expect(conf).toContain('server api:3000');
    expect(conf.split('{').length).toBe(conf.split('}').length);
  });
});

describe('Dockerfile', () => {
  it('builds in one stage and runs compiled files in a slim one as a non-root user', () => {
    expect(dockerfile.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    const [build, runtime] = dockerfile;
    expect(runtime!.from).toMatch(/slim/);
    // Dev dependencies are installed before the build: NODE_ENV=production would skip them.
    const installAt = build!.lines.findIndex((line) => line.startsWith('RUN pnpm install'));
    expect(build!.lines.slice(0, installAt).some((line) => /NODE_ENV=production/.test(line))).toBe(false);
    expect(build!.lines).toContain('RUN pnpm build');
    expect(runtime!.lines.some((line) => /^RUN pnpm install .*--prod/.test(line))).toBe(true);
    expect(runtime!.lines).toContain('USER node');
    expect(runtime!.lines.some((line) => line.startsWith('HEALTHCHECK'))).toBe(true);
    expect(runtime!.lines.at(-1)).toBe('CMD ["node", "--max-semi-space-size=32", "--conditions=compiled", "api/dist/server.js"]');
  });

  it('copies only what exists in the repository or is made by the build', () => {
    const made = ['sql/dist', 'agent-protocol/dist', 'workers/dist', 'api/contracts/dist', 'api/dist', 'web/dist'];
    for (const stage of dockerfile) {
      for (const line of stage.lines.filter((l) => l.startsWith('COPY'))) {
        const parts = line
          .split(/\s+/)
          .slice(1)
          .filter((part) => !part.startsWith('--'));
        for (const source of parts.slice(0, -1)) {
          if (source === '.') continue;
          const path = source.replace(/^\/src\//, '').replace(/\/$/, '');
          expect(existsSync(join(root, path)) || made.includes(path), `${line}: ${path}`).toBe(true);
        }
      }
    }
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts.build).toContain('node scripts/build.mjs');
    expect(existsSync(join(root, 'scripts/build.mjs'))).toBe(true);
    expect(scripts['start:api']).toBe('node --max-semi-space-size=32 --conditions=compiled api/dist/server.js');
    expect(scripts['start:workers']).toBe('node --max-semi-space-size=32 --conditions=compiled workers/dist/main.js');
    expect(scripts.start).toContain('tsx --max-semi-space-size=32 api/src/server.ts');
  });
});
