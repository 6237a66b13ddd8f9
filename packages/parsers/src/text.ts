import { readFile } from 'node:fs/promises';
import { parseCsv, sniffDelimiter } from './csv.js';
import { assertTableSize, padRows } from './limits.js';
import { gridTable } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import type { ParseInput, ParseOptions, ParsedDocument, PartOrigin } from './types.js';
import { ownVersion } from './versions.js';

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

/** text/plain, text/markdown and text/csv. CSV also yields one table, `Table 1`. */
export async function parseText(input: ParseInput, mediaType: string, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const bytes = await readFile(input.path);
  const decoded = decodeText(bytes);
  const origin: PartOrigin = { parser: 'readpack-text', version: ownVersion(), engine: 'native' };
  const text = decoded.replace(/\r\n?/g, '\n');
  if (mediaType !== 'text/csv') {
    const body = text.split(/\n\s*\n/).map((t) => t.trim()).filter((t) => t !== '').map((t) => ({ type: 'paragraph' as const, text: t, origin }));
    return parsedDocument({ origin, body });
  }
  const rows = parseCsv(decoded, sniffDelimiter(decoded));
  assertTableSize('the CSV file', rows.length, Math.max(0, ...rows.map((row) => row.length)), limits);
  return parsedDocument({ origin, body: [gridTable(padRows(rows), origin)] });
}
