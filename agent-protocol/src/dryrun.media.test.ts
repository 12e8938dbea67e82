/**
 * `dryrun.start`'s `media` (picked stored uploads) is optional, and an agent from before it still reads the message:
 * its schema (the same one without the field) strips what it does not know, so it runs without media.
 */
import { describe, expect, it } from 'vitest';
import { dryRunServerMessages, dryRunStart } from './dryrun.ts';

const start = {
  runId: 'r1',
  recipe: { id: 'instagram.post', version: 1 },
  params: { caption: 'Dry run' },
  media: ['/api/objects/4f7d6c1e-2b1a-4c3d-9e8f-0a1b2c3d4e5f'],
  mode: 'straight',
  effects: false,
  preflight: { account: null },
};

describe('dryrun.start media', () => {
  it('carries picked uploads to an agent that knows the field', () => {
    expect(dryRunServerMessages['dryrun.start'].parse(start).media).toEqual(start.media);
    const { media: _media, ...bare } = start;
    expect(dryRunStart.safeParse(bare).success).toBe(true);
  });

  it('is dropped, not refused, by an agent from before the field', () => {
    const older = dryRunStart.omit({ media: true });
    const parsed = older.safeParse(start);
    expect(parsed.success).toBe(true);
    expect(parsed.data).not.toHaveProperty('media');
  });
});
