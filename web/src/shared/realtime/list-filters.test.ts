import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { cannotTell, containsIn, listMatcher } from './list-filters';

const row = z.object({ id: z.string(), name: z.string(), status: z.enum(['on', 'off']), battery: z.number(), ownerId: z.string().nullable() });
type Row = z.infer<typeof row>;
const phone: Row = { id: 'd1', name: 'Pixel 7', status: 'on', battery: 80, ownerId: null };

describe('listMatcher', () => {
  it('matches a filter named after a row field by equality, with no rule of its own', () => {
    const query = z.object({ limit: z.number().optional(), status: z.enum(['on', 'off']).optional(), battery: z.number().optional() });
    const matches = listMatcher(query, row, {});
    expect(matches(phone, { status: 'on', limit: '5' }, undefined)).toBe(true);
    expect(matches(phone, { status: 'off' }, undefined)).toBe(false);
    expect(matches(phone, { battery: '80' }, undefined)).toBe(true);
  });

  it('uses the rules given for filters that name no field, and cannot tell a key the contract lacks', () => {
    const query = z.object({ search: z.string().optional(), from: z.string().optional(), ownerId: z.string().optional() });
    const matches = listMatcher(query, row, { search: containsIn<Row>('name'), from: cannotTell });
    expect(matches(phone, { search: 'pixel' }, undefined)).toBe(true);
    expect(matches(phone, { search: 'galaxy' }, undefined)).toBe(false);
    expect(matches(phone, { from: '2025-01-01' }, undefined)).toBeUndefined();
    expect(matches(phone, { ownerId: 'u1' }, undefined)).toBe(false);
    expect(matches(phone, { color: 'red' }, undefined)).toBeUndefined();
  });

  it('asks, in its type, for a rule for each filter that names no field', () => {
    const query = z.object({ search: z.string().optional() });
    // @ts-expect-error: `search` names no field of the row, so its rule is required.
    expect(listMatcher(query, row, {})(phone, { search: 'x' }, undefined)).toBeUndefined();
  });
});
