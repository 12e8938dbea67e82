/**
 * A test file's app, built at the file's top (`const t = await fileApp()`) and closed after its last test, and the
 * people a file usually signs in to it. A file's own `afterAll`, registered after this, runs before the app closes.
 */
import { afterAll } from 'vitest';
import type { Config } from '../../src/config.ts';
import { buildTestApp, inviteVa, people, signUp, type TestApp } from './app.ts';

export async function fileApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const t = await buildTestApp(overrides);
  afterAll(() => t.close());
  return t;
}

/** The file's app with an operator (signed up) and a VA they invited. */
export async function appWithTeam(overrides: Partial<Config> = {}) {
  const t = await fileApp(overrides);
  const operator = await signUp(t.app);
  const va = await inviteVa(t.app, operator);
  return { t, operator, va };
}

/** The file's app with the people of `people`: an operator and a VA of one workspace, an operator of another, nobody. */
export async function appWithPeople(overrides: Partial<Config> = {}) {
  const t = await fileApp(overrides);
  return { t, ...(await people(t.app)) };
}
