import { readFile } from 'node:fs/promises';
import { gridTable, type FlowBlock } from '@readpack/reading-package';
import { parseCsv, sniffDelimiter } from './csv.js';
import { parsedDocument } from './document.js';
import { htmlDocument } from './html-blocks.js';
import { assertTableSize, padRows } from './limits.js';
import { markdownBlocks } from './markdown-blocks.js';
import type { ParseInput, ParseOptions, ParsedDocument, PartOrigin } from './types.js';
import { libraryOrigin, ownVersion } from './versions.js';

/**
 * Bytes to text: UTF-16 when a UTF-16 BOM says so, else UTF-8 (BOM stripped), and when that is not
 * valid UTF-8, ISO-8859-1 (every byte maps to a character, so decoding never fails).
 */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
}

export const TSV_MEDIA_TYPE = 'text/tab-separated-values';
export const TEXT_MEDIA_TYPES = ['text/plain', 'text/markdown', 'text/csv', TSV_MEDIA_TYPE, 'text/html'] as const;

/** A number as a spreadsheet export writes it: sign, currency, thousands separators, decimals, percent, exponent; or an ISO date. */
const NUMERIC = /^(?:[-+(]?[$€£¥]?\s?\d[\d,.\s']*(?:e[-+]?\d+)?%?\)?|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?)$/i;

/**
 * The CSV header rule (what "looks like a header" means here): the first row is a header row when
 * there is a body (2+ rows), every cell of the first row is filled, non-numeric and distinct, and
 * at least one column's body is numeric (all its filled cells) — text over numbers, the one case
 * where a header can be told from data. An all-text CSV gets no header row: it cannot be told.
 */
export function csvHeaderRows(rows: readonly string[][]): number {
  const [first, ...body] = rows;
  if (!first || body.length === 0 || first.length === 0) return 0;
  const labels = first.map((c) => c.trim());
  if (labels.some((c) => c === '' || NUMERIC.test(c)) || new Set(labels).size !== labels.length) return 0;
  const numericColumn = labels.some((_, col) => {
    const filled = body.map((row) => (row[col] ?? '').trim()).filter((c) => c !== '');
    return filled.length > 0 && filled.every((c) => NUMERIC.test(c));
  });
  return numericColumn ? 1 : 0;
}

/**
 * text/plain (paragraphs split on blank lines), text/markdown (markdown-blocks.ts), text/html
 * (html-blocks.ts), text/csv and text/tab-separated-values (one table, `Table 1`).
 */
export async function parseText(input: ParseInput, mediaType: string, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const bytes = await readFile(input.path);
  const decoded = decodeText(bytes);
  const own: PartOrigin = { parser: 'readpack-text', version: ownVersion(), engine: 'native' };
  const text = decoded.replace(/\r\n?/g, '\n');
  if (mediaType === 'text/csv' || mediaType === TSV_MEDIA_TYPE) {
    const rows = parseCsv(decoded, mediaType === TSV_MEDIA_TYPE ? '\t' : sniffDelimiter(decoded));
    assertTableSize(`the ${mediaType === TSV_MEDIA_TYPE ? 'TSV' : 'CSV'} file`, rows.length, Math.max(0, ...rows.map((row) => row.length)), limits);
    const grid = padRows(rows);
    return parsedDocument({ origin: own, body: [gridTable(grid, own, csvHeaderRows(grid))] });
  }
  if (mediaType === 'text/markdown') {
    const origin = libraryOrigin('marked', 'native');
    return parsedDocument({ origin, body: checked(markdownBlocks(text, origin), limits) });
  }
  if (mediaType === 'text/html') {
    const { body, furniture } = htmlDocument(text, own);
    return parsedDocument({ origin: own, body: checked(body, limits), furniture });
  }
  const body = text
    .split(/\n\s*\n/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => ({ type: 'paragraph' as const, text: t, origin: own }));
  return parsedDocument({ origin: own, body });
}

/** Tables written in Markdown or HTML obey the same size limits as sheets. */
function checked(body: FlowBlock[], limits: Required<ParseOptions>): FlowBlock[] {
  for (const block of body) if (block.type === 'table') assertTableSize('a table', block.rows, block.columns, limits);
  return body;
}
