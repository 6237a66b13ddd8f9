/**
 * The small documents of `npm run bench:throughput`, generated in the run: one-page DOCX, one-page
 * text PDF, a small XLSX and a small PNG of text. Each copy differs by its number, so every upload
 * has its own sha256 and the API's dedup (same content → same job) joins none of them.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { DOCX_MEDIA_TYPE, PDF_MEDIA_TYPE, XLSX_MEDIA_TYPE } from '@readpack/parsers';
import { textPng } from '@readpack/testing';

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
  return zip([
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    { name: 'word/document.xml', data: document },
  ]);
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

/** A deflated ZIP archive (the DOCX container), with the real sizes and CRCs. */
function zip(entries: { name: string; data: string }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = Buffer.from(entry.data, 'utf8');
    const body = deflateRawSync(raw);
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
