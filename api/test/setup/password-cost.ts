/**
 * Test processes hash passwords with argon2id at its lowest cost (1 MiB, one pass) instead of the product's OWASP
 * minimum (19 MiB, two passes): every signed-up person and every sign-in costs about 30 ms less on this machine, and
 * a test signs many in. The hash is still argon2id through the same binding, and a verify reads the cost from the
 * hash itself, so sign-in, a wrong password and the decoy of an unknown email take the product's code paths. Servers
 * started as their own processes (the fault and compiled-build tests) hash at the product's cost.
 */
import { vi } from 'vitest';

vi.mock('@node-rs/argon2', async (importOriginal) => {
  const argon2 = await importOriginal<typeof import('@node-rs/argon2')>();
  return {
    ...argon2,
    hash: (password: Parameters<typeof argon2.hash>[0], options?: Parameters<typeof argon2.hash>[1], signal?: Parameters<typeof argon2.hash>[2]) =>
      argon2.hash(password, { ...options, memoryCost: 1024, timeCost: 1 }, signal),
  };
});
