import { z } from 'zod';

/** Ids are uuids; anything else is answered 404 by the routes rather than 400, as an unknown id. */
export const id = z.string();
export const idParams = z.object({ id });
/** An id given as a list filter: a malformed one is the caller's mistake, named. */
export const idFilter = z.uuid({ error: 'must be an id' });
export type IdParams = z.infer<typeof idParams>;

/** Times travel as ISO 8601 strings. */
export const isoTime = z.string();
export const nullableTime = isoTime.nullable();

/** An ISO date-time accepted in a body: a string Date.parse understands, normalised to ISO. */
export const timeInput = z
  .string()
  .max(64)
  .refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be a date and time' })
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
