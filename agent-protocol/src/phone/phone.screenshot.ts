/** Phone screenshots as the console takes them: JPEG, scaled so the longer side fits, aspect kept. */
import sharp from 'sharp';
import type { Screenshot, ScreenshotOptions } from './phone.device.ts';

export const SCREENSHOT_DEFAULTS = { maxSide: 720, quality: 70 } as const;

/** Scales and JPEG-encodes a PNG (what `screencap -p` prints) or any image sharp reads. */
export async function encodeScreenshot(image: Buffer, options: ScreenshotOptions = {}): Promise<Screenshot> {
  const maxSide = options.maxSide ?? SCREENSHOT_DEFAULTS.maxSide;
  const quality = options.quality ?? SCREENSHOT_DEFAULTS.quality;
  const { data, info } = await sharp(image)
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#000000' })
    .jpeg({ quality, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  return { mime: 'image/jpeg', data, width: info.width, height: info.height, capturedAt: new Date().toISOString() };
}
