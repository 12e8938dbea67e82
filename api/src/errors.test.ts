import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { CONFLICT_MESSAGE, installErrorHandler } from './errors.ts';

describe('the error handler', () => {
  it('answers a transaction ended by a deadlock with 503 and Retry-After, never a 500', async () => {
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    app.get('/deadlock', async () => {
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    app.get('/serialization', async () => {
      throw Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    });
    for (const url of ['/deadlock', '/serialization']) {
      const answer = await app.inject({ method: 'GET', url });
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json()).toEqual({ error: CONFLICT_MESSAGE });
    }
    await app.close();
  });
});
