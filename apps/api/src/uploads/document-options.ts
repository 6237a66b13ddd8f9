import type { Config } from '@readpack/config';
import { documentOptions, type DocumentOptions } from '@readpack/queues';
import { ApiError } from '../http/errors.js';

/**
 * The parse options of an upload, from its multipart fields (`engine`, `ocrLang`), with the
 * deployment's defaults. Invalid values are a 400 naming the field; `engine=mineru` on a
 * deployment without MinerU is refused at once rather than failing later.
 */
export function documentOptionsFrom(body: unknown, config: Config): DocumentOptions {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const parsed = documentOptions.safeParse({
    engine: fields.engine ?? config.engine.default,
    ocrLang: fields.ocrLang ?? config.ocr.defaultLang,
    // "Asked for" and "defaulted" stay apart: a page read with a defaulted language says so.
    ...(fields.ocrLang === undefined ? { ocrLangDefaulted: true } : {}),
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'options');
    throw new ApiError(400, 'invalid_option', `Invalid ${field}: use engine=local|mineru|auto and ocrLang like auto, eng or eng+chi_sim.`, { field });
  }
  if (parsed.data.engine === 'mineru' && !config.mineru.url) {
    throw new ApiError(400, 'engine_unavailable', 'engine=mineru is not available on this deployment (MINERU_URL is not set).', { field: 'engine' });
  }
  return parsed.data;
}
