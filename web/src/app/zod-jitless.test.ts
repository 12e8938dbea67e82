import { describe, expect, it, vi } from 'vitest';

describe('zod-jitless', () => {
  it('turns off zod compiling parsers, for a zod loaded after it', async () => {
    vi.resetModules();
    await import('./zod-jitless');
    const { z } = await import('zod');
    expect(z.config().jitless).toBe(true);
    // A schema built and run then never asks for `new Function`.
    const compile = vi.spyOn(globalThis, 'Function');
    expect(z.object({ name: z.string(), count: z.number() }).parse({ name: 'a', count: 1 })).toEqual({ name: 'a', count: 1 });
    expect(compile).not.toHaveBeenCalled();
  });
});
