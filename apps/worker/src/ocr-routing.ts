import type { ParsedPage } from '@readpack/parsers';

/**
 * Which PDF pages are read by OCR instead of their text layer:
 *   - fewer than OCR_MIN_CHARS_PER_PAGE non-space characters (no text layer, or a stray page
 *     number on a scan), or
 *   - a text layer that is mostly junk: more than 30% of its non-space characters are the
 *     replacement character, private-use, unassigned or control code points — the mark of a font
 *     without a usable encoding (text that extracts as symbols). Punctuation is not junk: a table
 *     of contents full of dot leaders keeps its text layer.
 * Every other page keeps its text layer.
 */
export function pagesNeedingOcr(pages: readonly Pick<ParsedPage, 'index' | 'text' | 'charCount'>[], minChars: number): number[] {
  return pages.filter((p) => p.charCount < minChars || junkShare(p.text) > 0.3).map((p) => p.index);
}

function junkShare(text: string): number {
  const chars = [...text.replace(/\s/g, '')];
  if (chars.length === 0) return 0;
  return chars.filter((c) => /[\uFFFD\p{Co}\p{Cn}\p{Cc}]/u.test(c)).length / chars.length;
}
