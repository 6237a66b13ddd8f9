import { crc32, deflateSync } from 'node:zlib';
import { BILLION_LAUGHS, buildPdf, buildZip, documentXml, minimalDocx, minimalXlsx, streamObject } from '@readpack/testing';

export { BILLION_LAUGHS, buildZip, documentXml, minimalDocx, minimalXlsx };

/**
 * A PDF with `pages` real page objects sharing one text content stream. `mediaBox` and `pageExtra`
 * (e.g. `/UserUnit 75000`) shape the pages; `count` overrides the declared /Count.
 */
export function textPdf(options: { pages?: number; count?: number; mediaBox?: string; pageExtra?: string; text?: string } = {}): Buffer {
  const pages = options.pages ?? 1;
  // Enough characters per page that no page is routed to OCR (OCR_MIN_CHARS_PER_PAGE, 32 by default).
  const content = `BT /F1 12 Tf 72 700 Td (${options.text ?? 'Hello hostile world: a text layer long enough to skip OCR.'}) Tj ET`;
  const firstPage = 5;
  const kids = Array.from({ length: pages }, (_, i) => `${firstPage + i} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${options.count ?? pages} >>`,
    streamObject(content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from(
      { length: pages },
      () => `<< /Type /Page /Parent 2 0 R /MediaBox ${options.mediaBox ?? '[0 0 612 792]'} ${options.pageExtra ?? ''} /Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>`,
    ),
  ];
  return buildPdf(objects);
}

/** A PDF whose page tree has no pages at all. */
export function emptyPdf(): Buffer {
  return textPdf({ pages: 0 });
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A PNG that claims `width × height` pixels (a decompression bomb for any decoder that trusts the
 * header) in a few hundred bytes: the pixel data is a short run of zeros.
 */
export function pngBomb(width = 100_000, height = 100_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc(4096))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A DOCX showing `image` (word/media/image1.png) inline, the way Word embeds a picture. */
export function docxWithImage(image: Buffer): Buffer {
  const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/></Relationships>`;
  const body = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body><w:p><w:r><w:t>A picture follows.</w:t></w:r><w:r><w:pict><v:shape><v:imagedata r:id="rId7"/></v:shape></w:pict></w:r></w:p></w:body></w:document>`;
  return minimalDocx({ documentXml: body, documentRels: rels, extra: [{ name: 'word/media/image1.png', data: image, method: 0 }] });
}

/** The ELF header of an executable: no document type would claim it. */
export const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120)]);

/** A CSV whose cells need far more heap than a 64 MB parser thread has (≈ 3.6 M cells). */
export function heapHungryCsv(): Buffer {
  const row = `${Array(40).fill('ab').join(',')}\n`;
  return Buffer.from(row.repeat(90_000));
}
