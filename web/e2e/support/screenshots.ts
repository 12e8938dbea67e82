/** Where the browser tests leave their screenshots (gitignored), to be looked at by a person. */
import { fileURLToPath } from 'node:url';

export const SCREENSHOT_DIR = fileURLToPath(new URL('../screenshots/', import.meta.url));
