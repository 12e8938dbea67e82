import { z } from 'zod';
import { must } from './sentences.ts';

/** Ids are uuids; anything else is answered 404 by the routes rather than 400, as an unknown id. */
export const id = z.string();
export const idParams = z.object({ id });
/** An id given as a list filter: a malformed one is the caller's mistake, named. */
export const idFilter = z.uuid({ error: must('be an id') });
export type IdParams = z.infer<typeof idParams>;

/** Times travel as ISO 8601 strings. */
export const isoTime = z.string();
export const nullableTime = isoTime.nullable();

/** Years a time may fall in: PostgreSQL stores any of them, and nothing in a farm's work lies outside. */
export const TIME_YEARS = { min: 1970, max: 9999 } as const;
/** ISO 8601 as browsers and clients write it: a date, optionally a time, optionally a zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** An ISO date-time accepted in a body or a filter, within TIME_YEARS, normalised to ISO. */
export const timeInput = z
  .string()
  .max(64)
  .refine((value) => ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)), {
    error: must('be a date and time, like 2026-05-01T09:30:00Z'),
    abort: true,
  })
  .refine(
    (value) => {
      const year = new Date(value).getUTCFullYear();
      return year >= TIME_YEARS.min && year <= TIME_YEARS.max;
    },
    { error: must(`be between the years ${TIME_YEARS.min} and ${TIME_YEARS.max}`), abort: true },
  )
  .transform((value) => new Date(value).toISOString());

export const shortText = z.string().trim().max(200);
export const longText = z.string().max(10_000);

export const errorBody = z.object({
  error: z.string(),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

export const okBody = z.object({ ok: z.literal(true) });

/** Paging shared by every list: arrays stay arrays; the next page's cursor comes in the `x-next-cursor` header. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z.string().max(200).optional(),
});
export const NEXT_CURSOR_HEADER = 'x-next-cursor';

/** Comma-separated list input: trimmed, empties dropped (the spec's rule for every list field of a form). */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Hashtags: space-separated, only tokens beginning with # kept. */
export function parseHashtags(text: string): string[] {
  return text.split(/\s+/).filter((token) => token.startsWith('#') && token.length > 1);
}

export const rangeValues = ['24h', '7d', '30d', '90d'] as const;
export const range = z.enum(rangeValues);
export type Range = z.infer<typeof range>;

/** An IANA time zone name, as Intl knows it. */
export function isTimeZone(value: string): boolean {
  if (value.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
export const timeZone = z.string().trim().max(64).refine(isTimeZone, { message: 'must be a time zone such as Europe/Paris' });
