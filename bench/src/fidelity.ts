/**
 * bench:fidelity — how faithful and how fast structured extraction is, on corpus documents and on
 * generated documents whose truth we wrote ourselves, side by side in one run:
 *
 * - text CER of born-digital PDFs against `pdftotext` (goal ≤ 1 %), CJK text layers (goal ≤ 2 %);
 * - reading order on two-column pages whose content stream interleaves the columns (goal ≥ 98 %);
 * - heading precision and recall against PDF outlines (goal ≥ 90 % each);
 * - table cell accuracy against the XLSX/DOCX source (goal ≥ 98 %);
 * - time per page of structured extraction against `pdftotext` (goal ≤ 3×).
 *
 * Every verdict in the report is computed from this run's numbers.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as XLSX from '@e965/xlsx';
import { distance } from 'fastest-levenshtein';
import { parseDocument, type ParsedDocument } from '@readpack/parsers';
import { blocksText, walkBlocks, type TableBlock } from '@readpack/reading-package';
import { outlinedPdf, twoColumnPdf } from '@readpack/testing';
import { cleanups, describeMachine, runBench, writeBenchSection } from './support.js';

const run = promisify(execFile);
const CORPUS = resolve(fileURLToPath(new URL('../../fixtures/corpus/', import.meta.url)));
const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const fold = (text: string) => text.replace(/\s+/g, ' ').trim();
const foldCjk = (text: string) => text.replace(/\s+/g, '');

interface Cer {
  errors: number;
  length: number;
}
const cer = (c: Cer) => (c.length === 0 ? 0 : c.errors / c.length);
const pct = (x: number, digits = 2) => `${(x * 100).toFixed(digits)} %`;

async function pdftotextPages(path: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', path, '-'], { maxBuffer: 256 * 1024 ** 2 });
  // pdftotext ends every page with a form feed.
  return stdout.split('\f').slice(0, -1);
}

/** What a page holds as text: its body, with its running header and footer (pdftotext has them too). */
function pageContent(doc: ParsedDocument, index: number): string {
  const furniture = doc.furniture.filter((b) => b.page === index);
  const headers = furniture.filter((b) => b.type === 'page_header').map((b) => b.text);
  const rest = furniture.filter((b) => b.type !== 'page_header').map((b) => b.text);
  return [...headers, blocksText(doc.body.filter((b) => b.page === index)), ...rest].join('\n');
}

async function textCer(path: string, folding: (t: string) => string): Promise<Cer> {
  const [reference, doc] = await Promise.all([pdftotextPages(path), parseDocument({ path, mediaType: PDF })]);
  const total: Cer = { errors: 0, length: 0 };
  reference.forEach((page, index) => {
    const ref = folding(page);
    total.errors += distance(ref, folding(pageContent(doc, index)));
    total.length += ref.length;
  });
  return total;
}

/** Fraction of consecutive expected lines that appear in the output in the same order. */
function readingOrder(expected: string[], text: string): { right: number; pairs: number } {
  const haystack = fold(text);
  let from = 0;
  const positions = expected.map((line) => {
    const at = haystack.indexOf(fold(line), from);
    if (at >= 0) from = at;
    return at >= 0 ? at : haystack.indexOf(fold(line));
  });
  let right = 0;
  for (let i = 1; i < positions.length; i += 1) if ((positions[i - 1] ?? -1) >= 0 && (positions[i] ?? -1) > (positions[i - 1] ?? -1)) right += 1;
  return { right, pairs: Math.max(positions.length - 1, 0) };
}

interface HeadingScore {
  truePositives: number;
  predicted: number;
  expected: number;
  levelRight: number;
}

const normalizeTitle = (t: string) => fold(t).toLowerCase().replace(/[.:]$/, '');

function headingScore(expected: { title: string; level: number }[], doc: ParsedDocument): HeadingScore {
  const predicted = [...walkBlocks(doc.body)].filter((b) => b.type === 'heading');
  const unmatched = expected.map((e) => ({ ...e, key: normalizeTitle(e.title) }));
  let truePositives = 0;
  let levelRight = 0;
  for (const heading of predicted) {
    const key = normalizeTitle(heading.text);
    const at = unmatched.findIndex((e) => e.key === key);
    if (at < 0) continue;
    truePositives += 1;
    if (unmatched[at]!.level === heading.level) levelRight += 1;
    unmatched.splice(at, 1);
  }
  return { truePositives, predicted: predicted.length, expected: expected.length, levelRight };
}

/** The outline of a PDF, read with pdfjs (the same copy the parser uses): titles and depths. */
async function pdfOutline(path: string): Promise<{ title: string; level: number }[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const { readFile } = await import('node:fs/promises');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(await readFile(path)), isEvalSupported: false, verbosity: 0 }).promise;
  const out: { title: string; level: number }[] = [];
  type Item = { title: string; items: Item[] };
  const walk = (items: Item[] | null, level: number) => {
    for (const item of items ?? []) {
      out.push({ title: item.title, level: Math.min(level, 6) });
      walk(item.items, level + 1);
    }
  };
  walk((await doc.getOutline()) as Item[] | null, 1);
  await doc.destroy();
  return out;
}

interface TruthCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
}

function cellScore(truth: TruthCell[], table: TableBlock | undefined): { right: number; total: number } {
  const found = new Map((table?.cells ?? []).map((c) => [`${c.row},${c.col}`, c]));
  let right = 0;
  for (const cell of truth) {
    const got = found.get(`${cell.row},${cell.col}`);
    if (got && fold(got.text) === fold(cell.text) && got.rowSpan === cell.rowSpan && got.colSpan === cell.colSpan) right += 1;
  }
  return { right, total: truth.length };
}

/** A sheet with merged cells written by SheetJS, with the cells it holds. */
function mergedSheet(): { bytes: Buffer; truth: TruthCell[] } {
  const rows = [
    ['Region', 'Q1', '', 'Q2', ''],
    ['', 'units', 'revenue', 'units', 'revenue'],
    ['North', '10', '1000', '12', '1300'],
    ['South', '7', '640', '9', '800'],
    ['Total', '17', '1640', '21', '2100'],
  ];
  const merges = [
    { s: { r: 0, c: 0 }, e: { r: 1, c: 0 } },
    { s: { r: 0, c: 1 }, e: { r: 0, c: 2 } },
    { s: { r: 0, c: 3 }, e: { r: 0, c: 4 } },
  ];
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  sheet['!merges'] = merges;
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Sales');
  const covered = new Set<string>();
  const truth: TruthCell[] = [];
  for (const m of merges) {
    truth.push({ row: m.s.r, col: m.s.c, rowSpan: m.e.r - m.s.r + 1, colSpan: m.e.c - m.s.c + 1, text: rows[m.s.r]![m.s.c]! });
    for (let r = m.s.r; r <= m.e.r; r += 1) for (let c = m.s.c; c <= m.e.c; c += 1) covered.add(`${r},${c}`);
  }
  rows.forEach((cells, r) => cells.forEach((text, c) => covered.has(`${r},${c}`) || truth.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text })));
  return { bytes: XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer, truth };
}

/** The same kind of table as an HTML source turned into DOCX by LibreOffice, when it is installed. */
async function mergedDocx(dir: string): Promise<{ path: string; truth: TruthCell[] } | undefined> {
  const html = `<html><body><p>Before the table.</p><table border="1">
<tr><td rowspan="2">Region</td><td colspan="2">Q1</td><td colspan="2">Q2</td></tr>
<tr><td>units</td><td>revenue</td><td>units</td><td>revenue</td></tr>
<tr><td>North</td><td>10</td><td>1000</td><td>12</td><td>1300</td></tr>
<tr><td>South</td><td>7</td><td>640</td><td>9</td><td>800</td></tr>
</table><p>After the table.</p></body></html>`;
  writeFileSync(join(dir, 'table.html'), html);
  try {
    await run('soffice', ['--headless', `-env:UserInstallation=file://${dir}/lo-profile`, '--convert-to', 'docx:MS Word 2007 XML', '--outdir', dir, join(dir, 'table.html')], { timeout: 120_000 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const grid = [
    ['Region', 'Q1', '', 'Q2', ''],
    ['', 'units', 'revenue', 'units', 'revenue'],
    ['North', '10', '1000', '12', '1300'],
    ['South', '7', '640', '9', '800'],
  ];
  const truth: TruthCell[] = [
    { row: 0, col: 0, rowSpan: 2, colSpan: 1, text: 'Region' },
    { row: 0, col: 1, rowSpan: 1, colSpan: 2, text: 'Q1' },
    { row: 0, col: 3, rowSpan: 1, colSpan: 2, text: 'Q2' },
  ];
  for (let r = 1; r < grid.length; r += 1) for (let c = r === 1 ? 1 : 0; c < 5; c += 1) truth.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text: grid[r]![c]! });
  return { path: join(dir, 'table.docx'), truth };
}

async function median(times: number, task: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const started = process.hrtime.bigint();
    await task();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

interface Row {
  measure: string;
  on: string;
  value: string;
  goal: string;
  met: boolean | undefined;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'readpack-fidelity-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const rows: Row[] = [];

  // Text CER against pdftotext, born-digital corpus PDFs and generated ones.
  const twoColumn = await twoColumnPdf({ pages: 3 });
  const outlined = await outlinedPdf({ sections: 6 });
  writeFileSync(join(dir, 'two-column.pdf'), twoColumn.bytes);
  writeFileSync(join(dir, 'outlined.pdf'), outlined.bytes);
  const latinPdfs = [
    ['GeoTopo-komprimiert.pdf', join(CORPUS, 'GeoTopo-komprimiert.pdf')],
    ['pdflatex-image.pdf', join(CORPUS, 'pdflatex-image.pdf')],
    ['REPAIR-2022-INV-001_multipage.pdf', join(CORPUS, 'REPAIR-2022-INV-001_multipage.pdf')],
    ['generated two-column (3 pages)', join(dir, 'two-column.pdf')],
    ['generated outlined (6 sections)', join(dir, 'outlined.pdf')],
  ] as const;
  const all: Cer = { errors: 0, length: 0 };
  const perDoc: string[] = [];
  for (const [name, path] of latinPdfs) {
    const c = await textCer(path, fold);
    all.errors += c.errors;
    all.length += c.length;
    perDoc.push(`${name} ${pct(cer(c))}`);
  }
  rows.push({ measure: 'text CER vs pdftotext (whitespace folded)', on: `${latinPdfs.length} born-digital PDFs, ${all.length.toLocaleString('en-US')} chars`, value: pct(cer(all)), goal: '≤ 1 %', met: cer(all) <= 0.01 });

  const cjk = await textCer(join(CORPUS, 'jo.pdf'), foldCjk);
  rows.push({ measure: 'CJK text-layer CER vs pdftotext (whitespace removed)', on: `jo.pdf (Japanese, vertical), ${cjk.length} chars`, value: pct(cer(cjk)), goal: '≤ 2 %', met: cer(cjk) <= 0.02 });

  // Reading order on interleaved two-column pages.
  const twoDoc = await parseDocument({ path: join(dir, 'two-column.pdf'), mediaType: PDF });
  const order = readingOrder(twoColumn.lines, twoDoc.text);
  const orderRate = order.pairs === 0 ? 0 : order.right / order.pairs;
  rows.push({ measure: 'reading order: consecutive lines in order', on: `generated two-column, content stream interleaved, ${order.pairs + 1} lines`, value: pct(orderRate, 1), goal: '≥ 98 %', met: orderRate >= 0.98 });

  // Headings against outlines.
  const headingSets = [
    ['generated outlined', outlined.headings, await parseDocument({ path: join(dir, 'outlined.pdf'), mediaType: PDF })],
    ['GeoTopo-komprimiert.pdf', await pdfOutline(join(CORPUS, 'GeoTopo-komprimiert.pdf')), await parseDocument({ path: join(CORPUS, 'GeoTopo-komprimiert.pdf'), mediaType: PDF })],
  ] as const;
  const headingTotals: HeadingScore = { truePositives: 0, predicted: 0, expected: 0, levelRight: 0 };
  const headingNotes: string[] = [];
  for (const [name, expected, doc] of headingSets) {
    const s = headingScore(expected, doc);
    headingTotals.truePositives += s.truePositives;
    headingTotals.predicted += s.predicted;
    headingTotals.expected += s.expected;
    headingTotals.levelRight += s.levelRight;
    headingNotes.push(`${name}: ${s.truePositives} of ${s.expected} outline entries found, ${s.predicted} headings produced, ${s.levelRight} at the outline's level`);
  }
  const precision = headingTotals.predicted === 0 ? 0 : headingTotals.truePositives / headingTotals.predicted;
  const recall = headingTotals.expected === 0 ? 0 : headingTotals.truePositives / headingTotals.expected;
  rows.push({ measure: 'heading precision', on: `${headingSets.length} PDFs with outlines`, value: pct(precision, 1), goal: '≥ 90 %', met: precision >= 0.9 });
  rows.push({ measure: 'heading recall', on: `${headingTotals.expected} outline entries`, value: pct(recall, 1), goal: '≥ 90 %', met: recall >= 0.9 });

  // Tables against their sources.
  const sheet = mergedSheet();
  writeFileSync(join(dir, 'merged.xlsx'), sheet.bytes);
  const xlsxDoc = await parseDocument({ path: join(dir, 'merged.xlsx'), mediaType: XLSX_TYPE });
  const xlsxTable = [...walkBlocks(xlsxDoc.body)].find((b): b is TableBlock => b.type === 'table');
  const xlsxScore = cellScore(sheet.truth, xlsxTable);
  const docx = await mergedDocx(dir);
  const docxScore = docx
    ? cellScore(docx.truth, [...walkBlocks((await parseDocument({ path: docx.path, mediaType: DOCX })).body)].find((b): b is TableBlock => b.type === 'table'))
    : undefined;
  const cellsRight = xlsxScore.right + (docxScore?.right ?? 0);
  const cellsTotal = xlsxScore.total + (docxScore?.total ?? 0);
  rows.push({
    measure: 'table cells right (text and spans)',
    on: docxScore ? `XLSX (SheetJS) and DOCX (LibreOffice from HTML) with merged cells, ${cellsTotal} cells` : `XLSX with merged cells, ${cellsTotal} cells (DOCX skipped: no LibreOffice)`,
    value: pct(cellsTotal === 0 ? 0 : cellsRight / cellsTotal, 1),
    goal: '≥ 98 %',
    met: cellsTotal > 0 && cellsRight / cellsTotal >= 0.98,
  });

  // Speed per page against pdftotext.
  const geo = join(CORPUS, 'GeoTopo-komprimiert.pdf');
  const pages = (await pdftotextPages(geo)).length;
  await parseDocument({ path: geo, mediaType: PDF }); // warm-up: module loading and JIT
  const ours = await median(3, () => parseDocument({ path: geo, mediaType: PDF }));
  const poppler = await median(3, () => run('pdftotext', ['-enc', 'UTF-8', geo, join(dir, 'geo.txt')]));
  const ratio = ours / poppler;
  rows.push({ measure: 'time per page: structured extraction ÷ pdftotext', on: `GeoTopo-komprimiert.pdf (${pages} pages), median of 3`, value: `${ratio.toFixed(2)}× (${(ours / pages).toFixed(2)} vs ${(poppler / pages).toFixed(2)} ms/page)`, goal: '≤ 3×', met: ratio <= 3 });

  const missed = rows.filter((r) => r.met === false);
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${describeMachine()}, poppler ${(await run('pdftotext', ['-v'])).stderr.split('\n')[0]?.replace(/^pdftotext version /, '') ?? '?'}.`,
    'Structured extraction is `parseDocument` of @readpack/parsers in this process (what the extract consumer runs in its parser thread); references are computed in the same run.',
    '',
    '| measure | on | value | goal | verdict |',
    '| --- | --- | ---: | --- | --- |',
    ...rows.map((r) => `| ${r.measure} | ${r.on} | ${r.value} | ${r.goal} | ${r.met === undefined ? '—' : r.met ? 'met' : '**missed**'} |`),
    '',
    `- Text CER per document: ${perDoc.join('; ')}.`,
    `- Headings: ${headingNotes.join('; ')}.`,
    `- Tables: XLSX ${xlsxScore.right}/${xlsxScore.total} cells right${docxScore ? `, DOCX ${docxScore.right}/${docxScore.total}` : ''}.`,
    missed.length === 0 ? `- Every goal of this run was met.` : `- Missed in this run: ${missed.map((r) => r.measure).join('; ')}.`,
  ];
  writeBenchSection('fidelity', lines.join('\n'));
}

void runBench(main);
