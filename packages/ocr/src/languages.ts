import { OcrError } from './errors.js';

/** A language set as tesseract takes it: `eng`, `chi_sim`, `eng+chi_sim` (order matters: the first is primary). */
export type LanguageSpec = string | readonly string[];

const CODE = /^[A-Za-z0-9_]+$/;

/** The codes of a language set, validated (they become file names) and without duplicates. */
export function parseLanguages(spec: LanguageSpec): string[] {
  const parts = (typeof spec === 'string' ? spec.split('+') : [...spec]).map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => !CODE.test(p))) {
    throw new OcrError('invalid_language', `invalid OCR language ${JSON.stringify(spec)}: use codes like eng, chi_sim or eng+chi_sim`);
  }
  return [...new Set(parts)];
}

export function languageKey(langs: readonly string[]): string {
  return langs.join('+');
}
