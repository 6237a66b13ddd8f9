import { distance } from 'fastest-levenshtein';

/**
 * Measurements the extraction benchmark reports (pure functions, no PDF needed).
 * fastest-levenshtein compares UTF-16 code units: texts are mapped to one private code unit per
 * distinct code point first, so a character outside the BMP counts as one edit, not two.
 */

/** Whitespace runs to one space, ends trimmed: layouts differ in blank lines, not in text. */
export function foldWhitespace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

function toCodeUnits(texts: string[]): string[] {
  const codes = new Map<string, number>();
  return texts.map((text) =>
    Array.from(text, (char) => {
      let code = codes.get(char);
      if (code === undefined) {
        code = codes.size;
        codes.set(char, code);
      }
      return String.fromCharCode(code);
    }).join(''),
  );
}

/**
 * Character error rate: Levenshtein distance over code points between the whitespace-folded
 * texts, divided by the reference's length (0 for two empty texts, 1 per character when the
 * reference is empty).
 */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const [ref, hyp] = toCodeUnits([foldWhitespace(reference), foldWhitespace(hypothesis)]) as [string, string];
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  // More than 65 536 distinct characters cannot be mapped to code units; no real text has them.
  return distance(ref, hyp) / ref.length;
}

/**
 * Reading-order accuracy: of the consecutive pairs of expected lines, the share whose first line
 * is found in the output and the second one after it (whitespace folded, each line looked up
 * after the previous one's position when possible). 1 for fewer than two lines.
 */
export function readingOrderAccuracy(expectedLines: string[], actualText: string): number {
  const lines = expectedLines.map(foldWhitespace).filter((l) => l !== '');
  if (lines.length < 2) return 1;
  const text = foldWhitespace(actualText);
  const positions = lines.map((line) => text.indexOf(line));
  let inOrder = 0;
  for (let i = 1; i < lines.length; i += 1) {
    const before = positions[i - 1]!;
    if (before < 0) continue;
    const after = text.indexOf(lines[i]!, before + lines[i - 1]!.length);
    if (after >= 0) inOrder += 1;
  }
  return inOrder / (lines.length - 1);
}
