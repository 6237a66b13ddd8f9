import type { Config } from '@readpack/config';
import type { ParsedDocument } from '@readpack/parsers';
import type { DocumentOptions } from '@readpack/queues';

/**
 * Which engine parses a document. `local` and `mineru` are the client's explicit choices; `auto`
 * sends to MinerU (when configured) the PDFs that local parsing handles badly, by this rule:
 *   - a page whose text layer has fewer than OCR_MIN_CHARS_PER_PAGE characters (a scan), or
 *   - tables: the local parser found a table (a ruled grid), or table-like text: at least 25% of
 *     the non-empty lines (and at least 8) are short rows (< 60 characters, two or more tokens)
 *     ending in a number, amount or date — label/value and column layouts such as invoices and
 *     statements, whose paragraphs the local layout keeps together, or
 *   - formulas: math symbols are more than 1% of the characters.
 * Multi-column layout is read locally (XY-cut), so it does not count.
 */
export type EngineChoice = 'local' | 'mineru';

export function chooseEngine(options: DocumentOptions, parsed: ParsedDocument | undefined, mediaType: string, config: Config): EngineChoice {
  if (options.engine !== 'auto') return options.engine;
  if (!config.mineru.url || mediaType !== 'application/pdf' || !parsed) return 'local';
  return looksComplex(parsed, config.ocr.minCharsPerPage) ? 'mineru' : 'local';
}

export function looksComplex(parsed: ParsedDocument, minCharsPerPage: number): boolean {
  if (parsed.pages?.some((p) => p.charCount < minCharsPerPage)) return true;
  if (parsed.tables.length > 0) return true;
  const lines = parsed.text.split('\n').map((l) => l.trim()).filter(Boolean);
  const tabular = lines.filter((l) => {
    const tokens = l.split(/\s+/);
    return l.length < 60 && tokens.length >= 2 && isNumeric(tokens.at(-1)!);
  });
  if (tabular.length >= 8 && tabular.length / lines.length >= 0.25) return true;
  const chars = parsed.text.replace(/\s/g, '');
  const math = (chars.match(/[=∑∫√≤≥±×÷∂∞≈≠∈∀∃^]/g) ?? []).length;
  return chars.length > 0 && math / chars.length > 0.01;
}

function isNumeric(token: string): boolean {
  return /^[-+(]?[$€£¥]?\d[\d.,:/%)-]*$/.test(token);
}
