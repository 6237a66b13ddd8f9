/**
 * The baseline of `npm run bench:throughput`: our parser library alone, in one process, on the
 * files the pipeline reads. `node bench/dist/throughput-parser.js <format> <file>…`: parses (or,
 * for an image, OCRs) the first file once to warm up, prints `ready`, waits for a line on stdin,
 * then reads every file in turn and prints one JSON line `{ms: [per file]}`.
 * An image is read the way the OCR stage reads it: the same engine (OCR_ENGINE's default,
 * tesseract.js, one warm worker), readPage with the language given (`eng`).
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { createOcrReader, readPage } from '@readpack/ocr';
import { parseDocument } from '@readpack/parsers';
import { ALL_FORMATS, MEDIA_TYPES, type Format } from './throughput-documents.js';

const [format, ...files] = process.argv.slice(2) as [Format, ...string[]];
if (!ALL_FORMATS.includes(format) || files.length === 0) throw new Error(`usage: throughput-parser.js <${ALL_FORMATS.join('|')}> <file>…`);

const ocr = format === 'png' ? createOcrReader('tesseract.js', { concurrency: 1, languages: ['eng'] }) : undefined;

async function readOne(path: string): Promise<number> {
  if (ocr) {
    // The bytes are read first, as the OCR stage has them from the blob store before it reads.
    const image = await readFile(path);
    const started = performance.now();
    const page = await readPage(ocr, image, { lang: 'eng' });
    if (page.text.trim() === '') throw new Error(`${path}: OCR read no text`);
    return performance.now() - started;
  }
  const started = performance.now();
  const document = await parseDocument({ path, mediaType: MEDIA_TYPES[format] });
  if (document.text.trim() === '') throw new Error(`${path}: parsed no text`);
  return performance.now() - started;
}

await readOne(files[0]!);
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  void line;
  break;
}
const ms: number[] = [];
for (const file of files) ms.push(await readOne(file));
process.stdout.write(`${JSON.stringify({ ms })}\n`);
await ocr?.close();
lines.close();
