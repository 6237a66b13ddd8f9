import { createRequire } from 'node:module';

/** The tesseract.js that actually runs, for a package's `origin` (read from its package.json). */
export const TESSERACT_VERSION: string = (createRequire(import.meta.url)('tesseract.js/package.json') as { version: string }).version;
