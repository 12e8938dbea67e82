/** Assertions on HTTP answers that show the status and the body together when they fail. */
import { expect } from 'vitest';
import type { Answer } from './app.ts';

/** The exact status and error text: the spec's messages are the contract. */
export function expectError(answer: Answer, status: number, error: string): void {
  expect({ status: answer.status, error: (answer.body as { error?: unknown } | undefined)?.error }).toEqual({ status, error });
}

/** A 400 whose error text is `message` and whose details name `field` with that message. */
export function expectFieldError(answer: Answer, field: string, message: string): void {
  expectError(answer, 400, message);
  expect((answer.body as { details?: unknown }).details).toContainEqual({ field, message });
}

export function expectStatus(answer: Answer, status: number): void {
  expect(answer.status, `${answer.status} ${JSON.stringify(answer.body)?.slice(0, 500)}`).toBe(status);
}

/** Any refusal of bad input: a 4xx with a JSON error text, never a 5xx. */
export function expectClientError(answer: Answer): void {
  expect(answer.status, `${answer.status} ${JSON.stringify(answer.body)?.slice(0, 500)}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${answer.status} ${JSON.stringify(answer.body)?.slice(0, 500)}`).toBeLessThan(500);
  expect(typeof (answer.body as { error?: unknown } | undefined)?.error).toBe('string');
}
