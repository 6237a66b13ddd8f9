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
  /** Its words joined by single spaces. */
  text: string;
  /** Mean of its words' confidences, 0–100. */
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

/** What a tesseract.js recognition returns with `{ text: true, tsv: true }`. */
export interface TesseractOutput {
  text: string;
  confidence: number;
  tsv: string | null;
}

const LINE = 4;
const WORD = 5;

/**
 * Lines and words from tesseract's TSV (level, page, block, paragraph, line, word, left, top,
 * width, height, confidence, text), in reading order. TSV rather than tesseract.js's `blocks`:
 * that object tree (every symbol with its box and choices) costs ~75 ms per page just to pass
 * from the worker thread to ours, against nothing for one string.
 */
export function toOcrPage(output: TesseractOutput): OcrPage {
  const lines: (OcrLine & { words: OcrWord[] })[] = [];
  const byKey = new Map<string, OcrLine & { words: OcrWord[] }>();
  for (const row of (output.tsv ?? '').split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12) continue;
    const level = Number(cols[0]);
    if (level !== LINE && level !== WORD) continue;
    const key = `${cols[2]}.${cols[3]}.${cols[4]}`;
    const [left, top, width, height] = cols.slice(6, 10).map(Number) as [number, number, number, number];
    const bbox = { x0: left, y0: top, x1: left + width, y1: top + height };
    if (level === LINE) {
      const line = { text: '', confidence: 0, bbox, words: [] };
      byKey.set(key, line);
      lines.push(line);
      continue;
    }
    const text = cols.slice(11).join('\t').trim();
    const line = byKey.get(key);
    if (text !== '' && line) line.words.push({ text, confidence: Number(cols[10]), bbox, line: -1 });
  }
  const kept = lines.filter((l) => l.words.length > 0);
  const words: OcrWord[] = [];
  const result: OcrLine[] = kept.map((line, index) => {
    for (const word of line.words) words.push({ ...word, line: index });
    const confidence = line.words.reduce((sum, w) => sum + w.confidence, 0) / line.words.length;
    return { text: line.words.map((w) => w.text).join(' '), confidence, bbox: line.bbox };
  });
  return { text: output.text.replace(/\s+$/, ''), confidence: result.length > 0 ? output.confidence : 0, lines: result, words };
}
