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
  /** Its words joined by single spaces (none between two CJK words: tesseract splits CJK text per character). */
  text: string;
  /** Mean of its words' confidences, 0–100. */
  confidence: number;
  bbox: PixelBox;
  /** Index into `paragraphs`. */
  paragraph: number;
}

/** A paragraph as tesseract's layout analysis found it (its block → paragraph levels), in reading order. */
export interface OcrParagraph {
  /** Its lines joined by `\n`. */
  text: string;
  /** Mean of its words' confidences, weighted by their length, 0–100. */
  confidence: number;
  bbox: PixelBox;
  /** Tesseract's block number: paragraphs of one block belong together (a column, a caption). */
  block: number;
}

export interface OcrPage {
  /** The page in tesseract's reading order: lines joined by `\n`, paragraphs by a blank line. */
  text: string;
  /** Mean word confidence weighted by word length, 0–100 (0 for a page without text). */
  confidence: number;
  paragraphs: OcrParagraph[];
  lines: OcrLine[];
  words: OcrWord[];
}

const PARAGRAPH = 3;
const LINE = 4;
const WORD = 5;

/**
 * Han, kana and CJK punctuation: Chinese and Japanese are written without spaces, and tesseract
 * reports such text in "words" of a character or a few. Not Hangul: Korean puts spaces between
 * words, and tesseract's Korean words are those words.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** Words of one line as text: a space between words, except where both sides are CJK (no spaces in CJK text). */
export function joinWords(words: readonly string[]): string {
  let text = '';
  for (const word of words) {
    if (text === '') text = word;
    else text += CJK.test(text.at(-1)!) && CJK.test(word[0]!) ? word : ` ${word}`;
  }
  return text;
}

function weightedConfidence(words: readonly { text: string; confidence: number }[]): number {
  const chars = words.reduce((n, w) => n + [...w.text].length, 0);
  return chars === 0 ? 0 : words.reduce((sum, w) => sum + w.confidence * [...w.text].length, 0) / chars;
}

function union(boxes: readonly PixelBox[]): PixelBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

interface RawLine {
  paragraphKey: string;
  block: number;
  bbox: PixelBox;
  words: { text: string; confidence: number; bbox: PixelBox }[];
}

/**
 * Paragraphs, lines and words of one page from tesseract's TSV (level, page, block, paragraph,
 * line, word, left, top, width, height, confidence, text), in reading order. Both engines give the
 * same TSV, so both give the same page. TSV rather than tesseract.js's `blocks`: that object
 * tree (every symbol with its box and choices) costs ~75 ms per page just to pass from the worker
 * thread to ours, against nothing for one string. The page text is built from the same rows, so
 * text, lines and paragraphs always agree.
 */
export function pageFromTsv(tsv: string): OcrPage {
  const lines: RawLine[] = [];
  const byKey = new Map<string, RawLine>();
  const paragraphBoxes = new Map<string, PixelBox>();
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12) continue;
    const level = Number(cols[0]);
    if (level !== PARAGRAPH && level !== LINE && level !== WORD) continue;
    const paragraphKey = `${cols[1]}.${cols[2]}.${cols[3]}`;
    const key = `${paragraphKey}.${cols[4]}`;
    const [left, top, width, height] = cols.slice(6, 10).map(Number) as [number, number, number, number];
    const bbox = { x0: left, y0: top, x1: left + width, y1: top + height };
    if (level === PARAGRAPH) {
      paragraphBoxes.set(paragraphKey, bbox);
    } else if (level === LINE) {
      const line: RawLine = { paragraphKey, block: Number(cols[2]), bbox, words: [] };
      byKey.set(key, line);
      lines.push(line);
    } else {
      const text = cols.slice(11).join('\t').trim();
      const line = byKey.get(key);
      if (text !== '' && line) line.words.push({ text, confidence: Math.max(0, Number(cols[10])), bbox });
    }
  }
  const kept = lines.filter((l) => l.words.length > 0);
  const paragraphs: OcrParagraph[] = [];
  const paragraphIndex = new Map<string, number>();
  const outLines: OcrLine[] = [];
  const words: OcrWord[] = [];
  const paragraphWords = new Map<number, { text: string; confidence: number }[]>();
  const paragraphLines = new Map<number, string[]>();
  for (const line of kept) {
    let p = paragraphIndex.get(line.paragraphKey);
    if (p === undefined) {
      p = paragraphs.length;
      paragraphIndex.set(line.paragraphKey, p);
      paragraphs.push({ text: '', confidence: 0, bbox: paragraphBoxes.get(line.paragraphKey) ?? line.bbox, block: line.block });
    }
    const index = outLines.length;
    for (const word of line.words) words.push({ ...word, line: index });
    const text = joinWords(line.words.map((w) => w.text));
    const confidence = line.words.reduce((sum, w) => sum + w.confidence, 0) / line.words.length;
    outLines.push({ text, confidence, bbox: line.bbox, paragraph: p });
    paragraphWords.set(p, [...(paragraphWords.get(p) ?? []), ...line.words]);
    paragraphLines.set(p, [...(paragraphLines.get(p) ?? []), text]);
  }
  paragraphs.forEach((paragraph, p) => {
    paragraph.text = (paragraphLines.get(p) ?? []).join('\n');
    paragraph.confidence = weightedConfidence(paragraphWords.get(p) ?? []);
    // Tesseract's paragraph box can include rejected blobs; the lines kept are what the text covers.
    paragraph.bbox = union(outLines.filter((l) => l.paragraph === p).map((l) => l.bbox));
  });
  return {
    text: paragraphs.map((p) => p.text).join('\n\n'),
    confidence: weightedConfidence(words),
    paragraphs,
    lines: outLines,
    words,
  };
}

/** Σ length × confidence of a line's words read with confidence ≥ `sure`. */
function lineScore(words: readonly OcrWord[], sure: number): number {
  return words.filter((w) => w.confidence >= sure).reduce((sum, w) => sum + [...w.text].length * w.confidence, 0);
}

/**
 * A single-block reading (psm 6) without the lines it found twice. In one uniform block lines
 * cannot overlap, yet on a short line in a tall margin tesseract sometimes finds the tops of
 * the glyphs as a line of their own ("과 하 므" above "광학 문자 인식은"): of two lines overlapping
 * by more than half the smaller one's height, the one with fewer surely read characters goes.
 */
export function withoutOverlappingLines(page: OcrPage, sure: number): OcrPage {
  const wordsOf = page.lines.map((_, i) => page.words.filter((w) => w.line === i));
  const drop = new Set<number>();
  for (let i = 0; i < page.lines.length; i += 1) {
    for (let j = i + 1; j < page.lines.length; j += 1) {
      if (drop.has(i) || drop.has(j)) continue;
      const a = page.lines[i]!.bbox;
      const b = page.lines[j]!.bbox;
      const vertical = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      const horizontal = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      if (horizontal <= 0 || vertical <= 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0)) continue;
      drop.add(lineScore(wordsOf[i]!, sure) >= lineScore(wordsOf[j]!, sure) ? j : i);
    }
  }
  if (drop.size === 0) return page;
  const kept = page.lines.map((line, i) => ({ line, i })).filter(({ i }) => !drop.has(i));
  const usedParagraphs = [...new Set(kept.map(({ line }) => line.paragraph))];
  const lines: OcrLine[] = kept.map(({ line }) => ({ ...line, paragraph: usedParagraphs.indexOf(line.paragraph) }));
  const words: OcrWord[] = kept.flatMap(({ i }, index) => wordsOf[i]!.map((w) => ({ ...w, line: index })));
  const paragraphs: OcrParagraph[] = usedParagraphs.map((p, index) => {
    const own = lines.filter((l) => l.paragraph === index);
    const ownWords = words.filter((w) => lines[w.line]!.paragraph === index);
    return { ...page.paragraphs[p]!, text: own.map((l) => l.text).join('\n'), confidence: weightedConfidence(ownWords), bbox: union(own.map((l) => l.bbox)) };
  });
  return { text: paragraphs.map((p) => p.text).join('\n\n'), confidence: weightedConfidence(words), paragraphs, lines, words };
}
