import { describe, expect, it } from '@jest/globals';
import { grayFromPgm, joinWords, normalizeContrast, normalizeImage, pageFromTsv, withoutOverlappingLines } from '@readpack/ocr';

const row = (level: number, block: number, par: number, line: number, word: number, box: [number, number, number, number], conf: number, text = '') =>
  [level, 1, block, par, line, word, ...box, conf, text].join('\t');

describe('a page from tesseract TSV', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    row(1, 0, 0, 0, 0, [0, 0, 600, 400], -1),
    row(2, 1, 0, 0, 0, [10, 10, 300, 60], -1),
    row(3, 1, 1, 0, 0, [10, 10, 300, 60], -1),
    row(4, 1, 1, 1, 0, [10, 10, 300, 20], -1),
    row(5, 1, 1, 1, 1, [10, 10, 100, 20], 90, 'Annual'),
    row(5, 1, 1, 1, 2, [120, 10, 100, 20], 80, 'report'),
    row(4, 1, 1, 2, 0, [10, 40, 200, 20], -1),
    row(5, 1, 1, 2, 1, [10, 40, 200, 20], 70, '2024'),
    row(2, 2, 0, 0, 0, [10, 200, 300, 30], -1),
    row(3, 2, 1, 0, 0, [10, 200, 300, 30], -1),
    row(4, 2, 1, 1, 0, [10, 200, 300, 30], -1),
    row(5, 2, 1, 1, 1, [10, 200, 30, 30], 95, '光学'),
    row(5, 2, 1, 1, 2, [40, 200, 30, 30], 95, '识别'),
    row(4, 2, 1, 2, 0, [10, 240, 300, 30], -1),
    row(5, 2, 1, 2, 1, [10, 240, 30, 30], 10, ' '),
  ].join('\n');

  it('keeps tesseract paragraphs in order with their lines, boxes and weighted confidence', () => {
    const page = pageFromTsv(tsv);
    expect(page.paragraphs.map((p) => [p.text, p.block])).toEqual([
      ['Annual report\n2024', 1],
      ['光学识别', 2],
    ]);
    expect(page.paragraphs[0]!.bbox).toEqual({ x0: 10, y0: 10, x1: 310, y1: 60 });
    expect(page.paragraphs[0]!.confidence).toBeCloseTo((6 * 90 + 6 * 80 + 4 * 70) / 16);
    expect(page.lines.map((l) => [l.text, l.paragraph])).toEqual([
      ['Annual report', 0],
      ['2024', 0],
      ['光学识别', 1],
    ]);
    expect(page.text).toBe('Annual report\n2024\n\n光学识别');
    expect(page.words).toHaveLength(5);
  });

  it('joins CJK words without spaces, other words (Hangul too) with one', () => {
    expect(joinWords(['日本語', 'の', '文字'])).toBe('日本語の文字');
    expect(joinWords(['안녕하세요', '세계'])).toBe('안녕하세요 세계');
    expect(joinWords(['OCR', '光学', 'test'])).toBe('OCR 光学 test');
  });

  it('gives an empty page for an empty TSV', () => {
    expect(pageFromTsv('')).toEqual({ text: '', confidence: 0, paragraphs: [], lines: [], words: [] });
  });
});

describe('a single-block reading without lines found twice', () => {
  it('drops the less surely read of two lines that overlap by more than half a line, and nothing else', () => {
    const page = pageFromTsv(
      [
        row(3, 1, 1, 0, 0, [0, 0, 300, 120], -1),
        row(4, 1, 1, 1, 0, [40, 76, 60, 12], -1),
        row(5, 1, 1, 1, 1, [40, 76, 30, 12], 9, '과'),
        row(5, 1, 1, 1, 2, [70, 76, 30, 12], 24, '하'),
        row(4, 1, 1, 2, 0, [40, 76, 240, 30], -1),
        row(5, 1, 1, 2, 1, [40, 76, 100, 30], 95, '광학'),
        row(5, 1, 1, 2, 2, [150, 76, 100, 30], 93, '문자'),
        row(4, 1, 1, 3, 0, [40, 130, 240, 30], -1),
        row(5, 1, 1, 3, 1, [40, 130, 100, 30], 90, '인식은'),
      ].join('\n'),
    );
    const cleaned = withoutOverlappingLines(page, 70);
    expect(cleaned.lines.map((l) => l.text)).toEqual(['광학 문자', '인식은']);
    expect(cleaned.text).toBe('광학 문자\n인식은');
    expect(cleaned.words.map((w) => w.line)).toEqual([0, 0, 1]);
    expect(withoutOverlappingLines(cleaned, 70)).toBe(cleaned);
  });
});

describe('contrast stretch', () => {
  it('maps the 1st percentile to black and the 99th to white', () => {
    const gray = new Uint8Array(1000).fill(230);
    gray.fill(70, 0, 100);
    const out = normalizeContrast({ gray, width: 100, height: 10 });
    expect(out.gray[0]).toBe(0);
    expect(out.gray[999]).toBe(255);
  });

  it('reads the pixels of a PGM and leaves other bytes alone', () => {
    const pgm = Buffer.concat([Buffer.from('P5\n2 1\n255\n'), Buffer.from([100, 200])]);
    expect(grayFromPgm(pgm)).toMatchObject({ width: 2, height: 1 });
    expect(normalizeImage(pgm)).toMatchObject({ gray: new Uint8Array([0, 255]) });
    const png = Buffer.from('\x89PNG\r\n\x1a\n', 'latin1');
    expect(normalizeImage(png)).toBe(png);
  });
});
