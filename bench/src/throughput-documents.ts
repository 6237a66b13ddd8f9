/**
 * The small documents of `npm run bench:throughput`, generated in the run: one-page DOCX, one-page
 * text PDF, a small XLSX and a small PNG of text. Each copy differs by its number, so every upload
 * has its own sha256 and the API's dedup (same content → same job) joins none of them.
 */
import * as XLSX from '@e965/xlsx';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { DOCX_MEDIA_TYPE, PDF_MEDIA_TYPE, XLSX_MEDIA_TYPE } from '@readpack/parsers';
import { minimalDocx, textPng } from '@readpack/testing';

export const FORMATS = ['docx', 'pdf', 'xlsx', 'png'] as const;
export type SmallFormat = (typeof FORMATS)[number];
/** Longer text PDFs (10 and 40 pages): where the pipeline's per-document cost stops mattering beside the parse. */
export const SIZE_FORMATS = ['pdf10', 'pdf40'] as const;
export const ALL_FORMATS = [...FORMATS, ...SIZE_FORMATS] as const;
export type Format = (typeof ALL_FORMATS)[number];

export const MEDIA_TYPES: Record<Format, string> = { docx: DOCX_MEDIA_TYPE, pdf: PDF_MEDIA_TYPE, pdf10: PDF_MEDIA_TYPE, pdf40: PDF_MEDIA_TYPE, xlsx: XLSX_MEDIA_TYPE, png: 'image/png' };
/** The file extension of a format's documents. */
export const EXTENSIONS: Record<Format, string> = { docx: 'docx', pdf: 'pdf', pdf10: 'pdf', pdf40: 'pdf', xlsx: 'xlsx', png: 'png' };
/** Pages of a format's documents. */
export const PAGES: Record<Format, number> = { docx: 1, pdf: 1, pdf10: 10, pdf40: 40, xlsx: 1, png: 1 };

/** About a third of a page of prose: what a short memo or letter holds. */
function paragraphs(n: number): string[] {
  return [
    `Quarterly report number ${n}`,
    `This memo number ${n} summarises the work of the team during the quarter and lists the open items that need a decision before the next review.`,
    'The migration of the archive finished two weeks early. Every record was checked against its source and the differences were corrected by hand.',
    'Spending stayed within the budget agreed in January. The largest item was the replacement of the scanners in the reading room.',
    'Next quarter the team will move the public catalogue to the new search service and retire the old index.',
  ];
}

export async function generate(format: Format, n: number): Promise<Buffer> {
  switch (format) {
    case 'docx':
      return docx(n);
    case 'pdf':
    case 'pdf10':
    case 'pdf40':
      return pdf(n, PAGES[format]);
    case 'xlsx':
      return xlsx(n);
    case 'png':
      // Scan-like body text (48 px ≈ 11.5 pt at 300 dpi), a few lines: a receipt or a label.
      return textPng(paragraphs(n).slice(0, 1).concat(['Invoice total 1,250.00 EUR', `Reference ${1000 + n}`, 'Thank you for your order']), { script: 'eng' });
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A minimal WordprocessingML package: a heading and four paragraphs, no styles part. */
function docx(n: number): Buffer {
  const [title, ...body] = paragraphs(n);
  const para = (text: string, style?: string) => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${para(title!, 'Heading1')}${body.map((p) => para(p)).join('')}</w:body></w:document>`;
  return minimalDocx({ documentXml: document });
}

async function pdf(n: number, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p += 1) textPage(doc.addPage([595, 842]), font, pages === 1 ? paragraphs(n) : paragraphs(n).map((text) => `${text} (page ${p})`));
  return Buffer.from(await doc.save());
}

function textPage(page: PDFPage, font: PDFFont, texts: readonly string[]): void {
  let y = 780;
  for (const text of texts) {
    // Wrapped by words at ~90 characters: a line of body text on A4.
    const words = text.split(' ');
    let line = '';
    for (const word of words) {
      if (`${line} ${word}`.length > 90) {
        page.drawText(line, { x: 50, y, size: 11, font });
        y -= 16;
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    page.drawText(line, { x: 50, y, size: 11, font });
    y -= 28;
  }
}

/** One sheet, a header row and 20 rows of 5 columns. */
function xlsx(n: number): Buffer {
  const rows: (string | number)[][] = [['Item', 'Quantity', 'Unit price', 'Total', 'Note']];
  for (let i = 1; i <= 20; i += 1) rows.push([`Item ${n}-${i}`, i, 2.5 * i, 2.5 * i * i, i % 3 === 0 ? 'reordered' : '']);
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), `Orders ${n}`);
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}
