import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseDocument, type ParseOptions } from '../src/index.js';
import { DOCX, rejectionCode, scratchDir, XLSX_TYPE } from './helpers.js';
import { BILLION_LAUGHS, buildZip, documentXml, minimalDocx, minimalXlsx } from '@readpack/testing';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => scratch.cleanup());

let counter = 0;
async function parse(data: Buffer, mediaType = DOCX, options: ParseOptions = {}) {
  counter += 1;
  return parseDocument({ path: await scratch.file(`input-${counter}`, data), mediaType }, options);
}

const MiB = 1024 * 1024;

describe('the ZIP is measured before any parser inflates it', () => {
  it('reads the minimal packages these tests build (the builder is sound)', async () => {
    expect((await parse(minimalDocx())).text).toBe('Hello from a minimal DOCX');
    expect((await parse(minimalXlsx(), XLSX_TYPE)).tables[0]?.rows).toEqual([['cell']]);
  });

  it('refuses more entries than maxZipEntries, from the end-of-directory record alone', async () => {
    const padding = Array.from({ length: 12 }, (_, i) => ({ name: `customXml/item${i}.xml`, data: '<a/>' }));
    const data = minimalDocx({ extra: padding });
    expect(await rejectionCode(parse(data, DOCX, { maxZipEntries: 10 }))).toBe('archive_too_large');
    expect((await parse(data, DOCX, { maxZipEntries: 15 })).text).toBe('Hello from a minimal DOCX');
  });

  it('refuses a declared total over maxZipUncompressedBytes', async () => {
    const data = minimalDocx({ extra: [{ name: 'word/media/big.bin', data: Buffer.alloc(2 * MiB, 7), method: 0 }] });
    expect(await rejectionCode(parse(data, DOCX, { maxZipUncompressedBytes: 1_000_000 }))).toBe('archive_too_large');
    expect((await parse(data)).text).toBe('Hello from a minimal DOCX');
  });

  it('refuses an entry compressed beyond maxZipRatio (a classic deflate bomb)', async () => {
    // 64 MiB of zeros deflate to about 64 KiB: a ratio near 1000:1.
    const bomb = minimalDocx({ extra: [{ name: 'word/media/zeros.bin', data: Buffer.alloc(64 * MiB) }] });
    expect(bomb.length).toBeLessThan(MiB);
    const error = await parse(bomb).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ code: 'archive_too_large', message: expect.stringMatching(/compressed \d+:1.*MAX_ZIP_RATIO/) });
    expect(await rejectionCode(parse(bomb, XLSX_TYPE))).toBe('archive_too_large');
  });

  it('catches an entry that inflates beyond the size its directory declares, without inflating it whole', async () => {
    // Declared 10 KiB, real 256 MiB: the declared numbers pass every check; the real bytes do not.
    const liar = minimalDocx({ extra: [{ name: 'word/media/liar.bin', data: Buffer.alloc(256 * MiB), declaredSize: 10 * 1024 }] });
    const before = process.memoryUsage().arrayBuffers;
    expect(await rejectionCode(parse(liar))).toBe('archive_too_large');
    // The inflate pass streams: nothing near the real size was ever held.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * MiB);
  });

  it('fails a damaged archive as corrupt_document', async () => {
    const whole = minimalDocx();
    expect(await rejectionCode(parse(whole.subarray(0, whole.length - 30)))).toBe('corrupt_document');
    const flipped = Buffer.from(whole);
    flipped[200] = flipped[200]! ^ 0xff;
    expect(['corrupt_document', 'resolved']).toContain(await rejectionCode(parse(flipped)));
    const data = buildZip([{ name: '../../evil.xml', data: '<a/>' }]);
    expect(await rejectionCode(parse(data))).toBe('corrupt_document');
  });
});

describe('XML in the package', () => {
  it('refuses a document type declaration: entity expansion (billion laughs) never starts', async () => {
    const laughs = minimalDocx({ documentXml: documentXml(['&lol9;'], BILLION_LAUGHS) });
    expect(await rejectionCode(parse(laughs))).toBe('unsupported_content');
    const sheet = minimalXlsx('<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData>', BILLION_LAUGHS);
    expect(await rejectionCode(parse(sheet, XLSX_TYPE))).toBe('unsupported_content');
  });

  it('refuses an external entity (XXE), also spelled in lower case or encoded as UTF-16', async () => {
    const xxe = '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    expect(await rejectionCode(parse(minimalDocx({ documentXml: documentXml(['&xxe;'], xxe) })))).toBe('unsupported_content');
    expect(await rejectionCode(parse(minimalDocx({ documentXml: documentXml(['&xxe;'], xxe.toLowerCase()) })))).toBe('unsupported_content');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(documentXml(['&xxe;'], xxe).replace('UTF-8', 'UTF-16'), 'utf16le')]);
    expect(await rejectionCode(parse(minimalDocx({ documentXml: utf16 })))).toBe('unsupported_content');
  });

  it('never reads an external target: an image linked to a local file stays out of the result', async () => {
    const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file:///etc/passwd" TargetMode="External"/></Relationships>`;
    const body = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body><w:p><w:r><w:t>before</w:t></w:r><w:r><w:pict><v:shape><v:imagedata r:id="rId9"/></v:shape></w:pict></w:r><w:r><w:t>after</w:t></w:r></w:p></w:body></w:document>`;
    const doc = await parse(minimalDocx({ documentXml: body, documentRels: rels }));
    expect(doc.text).toBe('beforeafter');
    expect(doc.images).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('root:');
  });
});
