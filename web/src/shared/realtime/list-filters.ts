/**
 * A list's filters, derived from the contract's query schema: the filter type the screens pass and the rules by
 * which a pushed row is kept in or dropped from a cached list. A new filter is one edit in the contract: a filter
 * named after a field of the row matches by equality with no code here; only a filter that names no field (a text
 * search, a time range, a flag) needs its rule, and the types refuse a list that lacks one.
 */
import type { z } from 'zod';
import type { QueryParams } from '../query';

/** Keys of a list's query that are about paging, not about which rows it selects. */
export const PAGING_KEYS: ReadonlySet<string> = new Set(['limit', 'cursor', 'paged']);

type ListQuery = z.ZodObject;
type RowSchema = z.ZodObject;

/** What a list screen may ask the server for: every filter of the contract's query, and a page size. */
export type ListFilters<Q extends ListQuery> = { [K in keyof z.output<Q> as K extends 'cursor' ? never : K]?: z.output<Q>[K] } & QueryParams;

/** A filter's verdict on a row: kept, dropped, or undefined when the browser cannot tell (the list is refetched). */
export type Verdict = boolean | undefined;
export type FilterRule<R> = (row: R, value: string, me: string | undefined) => Verdict;

type FilterKey<Q extends ListQuery> = Exclude<keyof z.output<Q> & string, 'limit' | 'cursor'>;
type RowKey<R extends RowSchema> = keyof z.output<R> & string;

/** Rules: required for filters that name no field of the row, optional (equality otherwise) for those that do. */
export type FilterRules<Q extends ListQuery, R extends RowSchema> = {
  [K in Exclude<FilterKey<Q>, RowKey<R>>]: FilterRule<z.output<R>>;
} & {
  [K in Extract<FilterKey<Q>, RowKey<R>>]?: FilterRule<z.output<R>>;
};

/** Decides whether a row belongs to a list cached under these filters. */
export type RowMatcher<T> = (row: T, filters: Readonly<Record<string, string>>, me: string | undefined) => Verdict;

/** Equality on the field the filter is named after (numbers and booleans compare as their query-string text). */
function sameField(key: string): FilterRule<Record<string, unknown>> {
  return (row, value) => {
    const field = row[key];
    if (typeof field === 'string') return field === value;
    if (typeof field === 'number' || typeof field === 'boolean') return String(field) === value;
    return false;
  };
}

/** The matcher of one list: each filter of its cache key must keep the row; a key the contract lacks cannot be told. */
export function listMatcher<Q extends ListQuery, R extends RowSchema>(query: Q, row: R, rules: FilterRules<Q, R>): RowMatcher<z.output<R>> {
  const own = rules as Readonly<Record<string, FilterRule<z.output<R>> | undefined>>;
  const fields = new Set(Object.keys(row.shape));
  const byKey = new Map<string, FilterRule<z.output<R>>>();
  for (const key of Object.keys(query.shape)) {
    if (PAGING_KEYS.has(key)) continue;
    const rule = own[key] ?? (fields.has(key) ? (sameField(key) as FilterRule<z.output<R>>) : undefined);
    if (rule) byKey.set(key, rule);
  }
  return (candidate, filters, me) => {
    for (const [key, value] of Object.entries(filters)) {
      if (PAGING_KEYS.has(key)) continue;
      const verdict = byKey.get(key)?.(candidate, value, me);
      if (verdict !== true) return verdict;
    }
    return true;
  };
}

/** A case-blind text search on one field. */
export const containsIn =
  <R>(field: keyof R & string): FilterRule<R> =>
  (row, value) => {
    const text = row[field];
    return typeof text === 'string' && text.toLowerCase().includes(value.toLowerCase());
  };

/** A filter the browser does not decide (a time window): lists under it are refetched instead. */
export const cannotTell: FilterRule<unknown> = () => undefined;
