/** A list item's bullet or number, as found at the start of a line. */
export interface ListMarker {
  marker: string;
  ordered: boolean;
  /** The number an ordered marker stands for (`3.` → 3, `c)` → 3, `(iv)` → 4). */
  value?: number;
}

const BULLET = /^([•◦▪▫‣⁃∙·●○■□▸►–\-*])\s+(\S.*)$/su;
const NUMBER = /^(\d{1,3}[.)]|\(\d{1,3}\))\s+(\S.*)$/su;
const ROMAN = /^(\(?(?:[ivxlc]{1,6}|[IVXLC]{1,6})[.)]|\((?:[ivxlc]{1,6}|[IVXLC]{1,6})\))\s+(\S.*)$/su;
const LETTER = /^([a-z]\)|\([a-z]\))\s+(\S.*)$/su;

const ROMAN_VALUES: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };

export function romanValue(numeral: string): number | undefined {
  const digits = numeral.toLowerCase().split('').map((c) => ROMAN_VALUES[c]);
  if (digits.some((d) => d === undefined)) return undefined;
  let total = 0;
  digits.forEach((d, i) => {
    const next = digits[i + 1] ?? 0;
    total += d! < next ? -d! : d!;
  });
  return total > 0 ? total : undefined;
}

/** The marker at the start of `text` and the text after it, or undefined for a plain line. */
export function parseListMarker(text: string): { marker: ListMarker; rest: string } | undefined {
  const bullet = BULLET.exec(text);
  if (bullet) return { marker: { marker: bullet[1]!, ordered: false }, rest: bullet[2]! };
  const number = NUMBER.exec(text);
  if (number) return { marker: { marker: number[1]!, ordered: true, value: Number(/\d+/.exec(number[1]!)![0]) }, rest: number[2]! };
  const letter = LETTER.exec(text);
  // A single letter other than i is a letter (`c)`), not a roman numeral.
  if (letter && !/^\(?i\)$/i.test(letter[1]!)) {
    const char = /[a-z]/.exec(letter[1]!)![0];
    return { marker: { marker: letter[1]!, ordered: true, value: char.charCodeAt(0) - 96 }, rest: letter[2]! };
  }
  const roman = ROMAN.exec(text);
  // A lone `C.` or `v.` is an initial or an abbreviation far more often than a numeral.
  if (roman && (roman[1]!.replace(/[().]/g, '').length > 1 || /i/i.test(roman[1]!))) {
    const value = romanValue(roman[1]!.replace(/[().]/g, ''));
    if (value !== undefined) return { marker: { marker: roman[1]!, ordered: true, value }, rest: roman[2]! };
  }
  return undefined;
}
