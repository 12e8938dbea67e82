/**
 * The console runs under a Content-Security-Policy without 'unsafe-eval': zod must not compile its parsers with
 * `new Function` (even trying is reported as a violation). Imported first by main.tsx, before any schema exists.
 *
 * zod keeps its settings on `globalThis.__zod_globalConfig` (one object shared by every copy of zod loaded) and
 * adopts an object already there. Setting it here, rather than calling `z.config`, keeps zod itself out of the
 * landing page's scripts: only the console's screens, loaded on demand, bring zod and the schemas.
 * zod-jitless.test.ts checks zod reads it.
 */
const scope = globalThis as typeof globalThis & { __zod_globalConfig?: { jitless?: boolean } };
scope.__zod_globalConfig ??= {};
scope.__zod_globalConfig.jitless = true;

export {};
