import { readFile } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
import WordExtractor from 'word-extractor';
import type { FlowBlock, FurnitureBlock } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { assertOle2, errorMessage } from './ooxml.js';
import { DocumentError, type ParseInput, type ParsedDocument, type PartOrigin } from './types.js';
import { libraryOrigin } from './versions.js';

/** word-extractor's text: paragraphs end with a line break; cell and row marks are tabs and line breaks. */
function lines(text: string): string[] {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** FibBase.fEncrypted (MS-DOC 2.5.2): the document stream is encrypted (or XOR-obfuscated). */
const F_ENCRYPTED = 0x0100;

/**
 * Whether the FIB at the start of the WordDocument stream says the file is encrypted:
 * word-extractor would read ciphertext as text, and LibreOffice cannot open it without the password.
 * A file whose directory cannot be read is left to word-extractor, which reports it.
 */
function isEncrypted(buffer: Buffer): boolean {
  let stream: Uint8Array | undefined;
  try {
    const content = XLSX.CFB.find(XLSX.CFB.read(buffer, { type: 'buffer' }), 'WordDocument')?.content;
    stream = content ? Uint8Array.from(content) : undefined;
  } catch {
    return false; // not a readable compound file: word-extractor gives the reason
  }
  if (!stream || stream.length < 12) return false;
  return ((stream[0x0a]! | (stream[0x0b]! << 8)) & F_ENCRYPTED) !== 0;
}

/**
 * Legacy Word (.doc, Word 97–2003 binary) with word-extractor, which reads the text streams of the
 * OLE2 file. It gives text only: styles are not recoverable from it, so every body line is a
 * paragraph (no headings), text boxes after the body; footnotes and endnotes become footnote
 * furniture, headers and footers page header/footer furniture, one block per line. An encrypted
 * file fails with `encrypted_document`. A file word-extractor cannot read fails with
 * `corrupt_document`; the extract stage then sends it to the convert stage (LibreOffice) when
 * conversion is available.
 */
export async function parseDoc(input: ParseInput): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOle2(buffer, 'DOC');
  if (isEncrypted(buffer)) throw new DocumentError('encrypted_document', 'the DOC file is password-protected');
  const origin: PartOrigin = libraryOrigin('word-extractor', 'native');
  let doc: WordExtractor.Document;
  try {
    doc = await new WordExtractor().extract(buffer);
  } catch (err) {
    throw new DocumentError('corrupt_document', `word-extractor cannot read the DOC file: ${errorMessage(err)}`, { cause: err });
  }
  // Text boxes of the body are content too; word-extractor keeps them apart from the main text.
  const body: FlowBlock[] = [...lines(doc.getBody()), ...lines(doc.getTextboxes({ includeHeadersAndFooters: false, includeBody: true }))].map((text) => ({ type: 'paragraph', text, origin }));
  const furniture: FurnitureBlock[] = [
    ...lines(doc.getHeaders({ includeFooters: false })).map((text): FurnitureBlock => ({ type: 'page_header', text, origin })),
    ...lines(doc.getFooters()).map((text): FurnitureBlock => ({ type: 'page_footer', text, origin })),
    ...[...lines(doc.getFootnotes()), ...lines(doc.getEndnotes())].map((text): FurnitureBlock => ({ type: 'footnote', text, origin })),
  ];
  if (body.length === 0 && furniture.length === 0) throw new DocumentError('empty_document', 'the DOC file has no text');
  return parsedDocument({ origin, body, furniture });
}
