/**
 * The console runs under a Content-Security-Policy without 'unsafe-eval': zod must not compile its parsers with
 * `new Function` (even trying is reported as a violation). Imported first by main.tsx, before any schema exists.
 */
import { z } from 'zod';

z.config({ jitless: true });
