import type { Config } from '@readpack/config';
import type { ParsedDocument, ParsedPage } from '@readpack/parsers';
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

export function chooseEngine(options: DocumentOptions, read: (() => ComplexityTally) | undefined, mediaType: string, config: Config): EngineChoice {
  if (options.engine !== 'auto') return options.engine;
  if (!config.mineru.url || mediaType !== 'application/pdf' || !read) return 'local';
  return read().complex(config.ocr.minCharsPerPage) ? 'mineru' : 'local';
}

export function looksComplex(parsed: ParsedDocument, minCharsPerPage: number): boolean {
  return complexityOf(parsed).complex(minCharsPerPage);
}

export function complexityOf(parsed: ParsedDocument): ComplexityTally {
  return new ComplexityTally().add(parsed.text, parsed.tables.length, parsed.pages ?? []);
}

/**
 * The rule's counts, added part by part: a document read in parts (a large PDF) says what its
 * text joined would, as the rule reads text line by line and a part's text is whole lines.
 */
export class ComplexityTally {
  /** The fewest characters a page has. */
  private fewest = Infinity;
  private tables = 0;
  private lines = 0;
  private tabular = 0;
  private chars = 0;
  private math = 0;

  add(text: string, tables: number, pages: readonly Pick<ParsedPage, 'charCount'>[]): this {
    for (const page of pages) this.fewest = Math.min(this.fewest, page.charCount);
    this.tables += tables;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      this.lines += 1;
      const tokens = line.split(/\s+/);
      if (line.length < 60 && tokens.length >= 2 && isNumeric(tokens.at(-1)!)) this.tabular += 1;
    }
    const chars = text.replace(/\s/g, '');
    this.chars += chars.length;
    this.math += (chars.match(/[=∑∫√≤≥±×÷∂∞≈≠∈∀∃^]/g) ?? []).length;
    return this;
  }

  complex(minCharsPerPage: number): boolean {
    if (this.fewest < minCharsPerPage) return true;
    if (this.tables > 0) return true;
    if (this.tabular >= 8 && this.tabular / this.lines >= 0.25) return true;
    return this.chars > 0 && this.math / this.chars > 0.01;
  }
}

function isNumeric(token: string): boolean {
  return /^[-+(]?[$€£¥]?\d[\d.,:/%)-]*$/.test(token);
}
