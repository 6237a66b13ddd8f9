import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { buildPdf, streamObject } from '@readpack/testing';
import { parseDocument } from '../src/index.js';
import { foldWhitespace } from '../src/pdf/metrics.js';
import { PDF, scratchDir } from './helpers.js';

/**
 * CJK text layers in non-embedded CID fonts (Type0 / CIDFontType0) with predefined CMaps, one
 * hand-built PDF per CMap family. Strings are encoded with the CMap's own code scheme (UCS-2 for
 * the Uni…-UCS2 CMaps, GBK, Big5, EUC-KR, JIS X 0208 row/cell, Shift-JIS), checked by decoding
 * them back with the platform's decoders. The extraction must equal what pdftotext reads, which
 * needs poppler's CJK language packs (Debian's poppler-data); without them only the known text is
 * compared.
 */

interface Case {
  cmap: string;
  ordering: 'Japan1' | 'GB1' | 'CNS1' | 'Korea1';
  font: string;
  /** Each column (vertical) or line (horizontal) of text, with its encoded codes in hex. */
  lines: { text: string; hex: string }[];
}

const ucs2 = (text: string): { text: string; hex: string } => ({ text, hex: Buffer.from(text, 'utf16le').swap16().toString('hex') });
/** JIS X 0208 row/cell codes (the `H` and `V` CMaps) are EUC-JP codes less 0x80 per byte. */
const jis = (text: string, eucHex: string): { text: string; hex: string } => ({
  text,
  hex: Buffer.from(Buffer.from(eucHex, 'hex').map((b) => b - 0x80)).toString('hex'),
});

const CASES: Case[] = [
  { cmap: 'UniJIS-UCS2-H', ordering: 'Japan1', font: 'Ryumin-Light', lines: [ucs2('日本語のテキストです')] },
  { cmap: 'UniGB-UCS2-H', ordering: 'GB1', font: 'STSong-Light', lines: [ucs2('这是中文文本')] },
  { cmap: 'UniCNS-UCS2-H', ordering: 'CNS1', font: 'MSung-Light', lines: [ucs2('這是中文文本')] },
  { cmap: 'UniKS-UCS2-H', ordering: 'Korea1', font: 'HYSMyeongJo-Medium', lines: [ucs2('한국어텍스트')] },
  { cmap: 'GBK-EUC-H', ordering: 'GB1', font: 'STSong-Light', lines: [{ text: '中文', hex: 'd6d0cec4' }] },
  { cmap: 'ETen-B5-H', ordering: 'CNS1', font: 'MSung-Light', lines: [{ text: '中文', hex: 'a4a4a4e5' }] },
  { cmap: 'KSC-EUC-H', ordering: 'Korea1', font: 'HYGoThic-Medium', lines: [{ text: '한국', hex: 'c7d1b1b9' }] },
  { cmap: '90ms-RKSJ-H', ordering: 'Japan1', font: 'Ryumin-Light', lines: [{ text: '日本語', hex: '93fa967b8cea' }] },
  { cmap: 'H', ordering: 'Japan1', font: 'Ryumin-Light', lines: [jis('日本語', 'c6fccbdcb8ec')] },
  { cmap: 'V', ordering: 'Japan1', font: 'Ryumin-Light', lines: [jis('縦書きの文', 'bdc4bdf1a4ada4cecab8'), jis('二行目です', 'c6f3b9d4ccdca4c7a4b9')] },
  { cmap: 'UniJIS-UCS2-V', ordering: 'Japan1', font: 'Ryumin-Light', lines: [ucs2('縦書きの文'), ucs2('二行目です')] },
];

const DECODERS: Record<string, string> = { 'GBK-EUC-H': 'gbk', 'ETen-B5-H': 'big5', 'KSC-EUC-H': 'euc-kr', '90ms-RKSJ-H': 'shift_jis' };

/** A page with the lines; vertical CMaps write columns from the right, top to bottom. */
function cjkPdf(c: Case): Buffer {
  const vertical = c.cmap.endsWith('-V') || c.cmap === 'V';
  const content = c.lines
    .map(({ hex }, i) => (vertical ? `BT /F1 14 Tf ${500 - i * 24} 700 Td <${hex}> Tj ET` : `BT /F1 14 Tf 72 ${700 - i * 20} Td <${hex}> Tj ET`))
    .join('\n');
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    streamObject(content),
    `<< /Type /Font /Subtype /Type0 /BaseFont /${c.font}-${c.cmap} /Encoding /${c.cmap} /DescendantFonts [6 0 R] >>`,
    `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${c.font} /CIDSystemInfo << /Registry (Adobe) /Ordering (${c.ordering}) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 >>`,
    `<< /Type /FontDescriptor /FontName /${c.font} /Flags 6 /FontBBox [0 -141 1000 859] /ItalicAngle 0 /Ascent 859 /Descent -141 /CapHeight 700 /StemV 80 >>`,
  ]);
}

const popplerHasCjk = existsSync('/usr/share/poppler/cMap');

describe('CJK text layers with predefined CMaps (non-embedded CID fonts)', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it.each(CASES.map((c) => [c.cmap, c] as const))('%s', async (_name, c) => {
    const decoder = DECODERS[c.cmap];
    if (decoder) for (const l of c.lines) expect(new TextDecoder(decoder).decode(Buffer.from(l.hex, 'hex'))).toBe(l.text);
    const path = await scratch.file(`${c.cmap}.pdf`, cjkPdf(c));
    const doc = await parseDocument({ path, mediaType: PDF });
    const expected = c.lines.map((l) => l.text).join('');
    expect(foldWhitespace(doc.text).replace(/ /g, '')).toBe(expected);
    expect(doc.pages?.[0]?.cidOrderings).toEqual([c.ordering]);
    if (popplerHasCjk) {
      const reference = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
      // pdftotext reads one column (line) per line: folded, both texts are the same characters in the same order.
      expect(foldWhitespace(doc.text).replace(/ /g, '')).toBe(foldWhitespace(reference).replace(/ /g, ''));
    }
  });
});
