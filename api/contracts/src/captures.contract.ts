/**
 * Inspect's saved captures (the recipe studio): a screen's UI tree with its frame, named by the person and kept per
 * app package, version and language, to see which selectors still find their node after an app update.
 */
import { z } from 'zod';
import { captureApp, selectorSchema, uiTreeSchema } from '@farm/agent-protocol/inspect';
import { id, idFilter, isoTime } from './common.ts';

const screenName = z
  .string({ error: 'Screen name is required' })
  .trim()
  .min(1, { message: 'Screen name is required' })
  .max(100, { message: 'Screen name must be at most 100 characters' });

/** The largest frame accepted with a capture (a phone's screenshot is a few hundred KB). */
export const CAPTURE_FRAME_MAX_BYTES = 3 * 1024 * 1024;

export const createUiCaptureBody = z.object({
  /** The phone it was taken on (a VA saves captures of the phones assigned to them only). */
  deviceId: id,
  screenName,
  tree: uiTreeSchema,
  /** The frame as a data URL (`data:image/jpeg;base64,…`), as Inspect received it. */
  frame: z
    .string({ error: 'Frame is required' })
    .max(Math.ceil((CAPTURE_FRAME_MAX_BYTES * 4) / 3) + 100, { message: 'Frame must be at most 3 MB' })
    .regex(/^data:image\/(jpeg|png);base64,[A-Za-z0-9+/=]+$/, { message: 'Frame must be a JPEG or PNG data URL' }),
  app: captureApp,
});
export type CreateUiCaptureBody = z.infer<typeof createUiCaptureBody>;

export const uiCaptureSummary = z.object({
  id,
  screenName: z.string(),
  package: z.string(),
  appVersion: z.string(),
  locale: z.string(),
  deviceId: id.nullable(),
  deviceName: z.string().nullable(),
  createdByName: z.string().nullable(),
  createdAt: isoTime,
  /** The frame: `/api/objects/<id>`. */
  frameUrl: z.string(),
  width: z.number().int(),
  height: z.number().int(),
});
export type UiCaptureSummary = z.infer<typeof uiCaptureSummary>;

export const uiCaptureDetail = uiCaptureSummary.extend({ tree: uiTreeSchema });
export type UiCaptureDetail = z.infer<typeof uiCaptureDetail>;

export const uiCaptureListQuery = z.object({
  package: z.string().max(200).optional(),
  screenName: z.string().max(100).optional(),
  deviceId: idFilter.optional(),
});

/** Which saved captures of a screen a selector still finds its node on. */
export const checkSelectorBody = z.object({
  package: z.string().max(200),
  screenName,
  selector: selectorSchema,
});

export const selectorCheck = z.object({
  results: z.array(
    z.object({
      captureId: id,
      appVersion: z.string(),
      locale: z.string(),
      createdAt: isoTime,
      /** Nodes on that screen the selector finds. */
      matches: z.number().int(),
      /** It finds exactly one node there (or, with an index, the one it picks). */
      finds: z.boolean(),
    }),
  ),
});
export type SelectorCheck = z.infer<typeof selectorCheck>;
