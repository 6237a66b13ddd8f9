import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { classifyPdfOpenError } from '@readpack/media';
import { PDFParse, VerbosityLevel } from 'pdf-parse';
import type { FlowBlock } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { libraryOrigin, packageDir } from './versions.js';

interface PdfjsAssets {
  cMapUrl: string;
  standardFontDataUrl: string;
}

let assets: PdfjsAssets | undefined;

/**
 * Filesystem folders (with a trailing separator, as pdfjs concatenates file names) of the CMaps
 * and standard fonts of the pdfjs-dist copy pdf-parse loads. Without the CMaps, CJK text in
 * predefined-CMap fonts extracts as empty strings, silently.
 */
function pdfjsAssets(): PdfjsAssets {
  if (!assets) {
    const fromPdfParse = createRequire(join(packageDir('pdf-parse'), 'package.json'));
    const root = dirname(fromPdfParse.resolve('pdfjs-dist/package.json'));
    assets = { cMapUrl: join(root, 'cmaps') + sep, standardFontDataUrl: join(root, 'standard_fonts') + sep };
  }
  return assets;
}

function tidyPage(text: string): string {
  return text.replace(/[ \t]+$/gm, '').replace(/^\n+|\s+$/g, '');
}

/** pdfjs errors by name (pdf-parse re-creates them as its own classes; some come raw from pdfjs). */
function toDocumentError(err: unknown, passwordGiven: boolean): unknown {
  if (err instanceof DocumentError) return err;
  const failure = classifyPdfOpenError(err, passwordGiven);
  return failure ? new DocumentError(failure.code, failure.message, { cause: err }) : err;
}

/**
 * Text-layer PDF extraction with pdf-parse 2 (pdfjs-dist). Every page is kept, also those without
 * a text layer (empty text, charCount 0): the OCR stage picks them up.
 */
export async function parsePdf(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const data = await readFile(input.path);
  if (data.length === 0) throw new DocumentError('corrupt_document', 'the PDF file is empty (0 bytes)');
  const origin = libraryOrigin('pdf-parse', 'text-layer');
  const parser = new PDFParse({
    // pdfjs may transfer (detach) the bytes it gets: hand it its own copy.
    data: new Uint8Array(data),
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...pdfjsAssets(),
    cMapPacked: true,
    isEvalSupported: false,
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const { total } = await parser.getInfo();
    if (total === 0) throw new DocumentError('empty_document', 'the PDF has no pages');
    if (total > limits.maxPages) {
      throw new DocumentError('too_many_pages', `the PDF has ${total} pages, more than the limit of ${limits.maxPages}`);
    }
    const result = await parser.getText({ pageJoiner: '' });
    const pages = [...result.pages].sort((a, b) => a.num - b.num);
    const body: FlowBlock[] = pages
      .map((page) => ({ type: 'paragraph' as const, page: page.num - 1, text: tidyPage(page.text), origin }))
      .filter((b) => b.text !== '');
    return parsedDocument({ origin, body, pages: pages.map((p) => ({ index: p.num - 1 })) });
  } catch (err) {
    throw toDocumentError(err, input.password !== undefined && input.password !== '');
  } finally {
    try {
      await parser.destroy();
    } catch {
      // Tear-down of an already failed or finished document: its outcome is decided above.
    }
  }
}
