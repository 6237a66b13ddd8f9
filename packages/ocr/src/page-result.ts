import type Tesseract from 'tesseract.js';

/** Pixel coordinates in the recognised image: (x0, y0) top-left, (x1, y1) bottom-right, exclusive. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrWord {
  text: string;
  /** 0–100. */
  confidence: number;
  bbox: PixelBox;
  /** Index into `lines`. */
  line: number;
}

export interface OcrLine {
  text: string;
  confidence: number;
  bbox: PixelBox;
}

export interface OcrPage {
  /** The page in tesseract's reading order: lines joined by `\n`, blocks by a blank line. */
  text: string;
  /** Tesseract's mean word confidence, 0–100 (0 for a page without text). */
  confidence: number;
  lines: OcrLine[];
  words: OcrWord[];
}

function box(b: Tesseract.Bbox): PixelBox {
  return { x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 };
}

/** tesseract.js ≥ 6 reports lines and words only inside `blocks` (requested with `{ blocks: true }`). */
export function toOcrPage(page: Tesseract.Page): OcrPage {
  const lines: OcrLine[] = [];
  const words: OcrWord[] = [];
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const text = line.text.trim();
        if (text === '') continue;
        const index = lines.length;
        lines.push({ text, confidence: line.confidence, bbox: box(line.bbox) });
        for (const word of line.words) {
          const wordText = word.text.trim();
          if (wordText !== '') words.push({ text: wordText, confidence: word.confidence, bbox: box(word.bbox), line: index });
        }
      }
    }
  }
  return { text: page.text.replace(/\s+$/, ''), confidence: lines.length > 0 ? page.confidence : 0, lines, words };
}
