import type { ParsedPage } from '@readpack/parsers';

/**
 * Which PDF pages are read by OCR instead of their text layer:
 *   - fewer than OCR_MIN_CHARS_PER_PAGE non-space characters (no text layer, or a stray page
 *     number on a scan), or
 *   - a text layer that is mostly not text: under half of its non-space characters are letters or
 *     digits (of any script) — the mark of a broken font encoding or a poor invisible OCR layer.
 * Every other page keeps its text layer.
 */
export function pagesNeedingOcr(pages: ParsedPage[], minChars: number): number[] {
  return pages.filter((p) => p.charCount < minChars || readableShare(p.text) < 0.5).map((p) => p.index);
}

function readableShare(text: string): number {
  const chars = [...text.replace(/\s/g, '')];
  if (chars.length === 0) return 0;
  return chars.filter((c) => /[\p{L}\p{N}]/u.test(c)).length / chars.length;
}
