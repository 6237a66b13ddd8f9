/** Scripts written without spaces between words: lines and runs of them join with nothing. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef\ufe10-\ufe1f\ufe30-\ufe4f]/u;

export function isUnspacedScript(char: string | undefined): boolean {
  return char !== undefined && UNSPACED.test(char);
}

/** `\s` and `trimEnd()` agree on what is white space (ECMAScript WhiteSpace and LineTerminator). */
const SPACE = /^\s$/u;
const LETTER = /^\p{L}$/u;

/** The last code point (a line's text grows run by run: not the whole string split each time). */
function lastChar(text: string): string | undefined {
  if (text === '') return undefined;
  const low = text.charCodeAt(text.length - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && text.length > 1;
  return text.slice(pair ? -2 : -1);
}

function firstChar(text: string): string | undefined {
  const code = text.codePointAt(0);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

/** Two pieces of one line: a space between them unless one already has it or both are CJK. */
export function joinWithSpace(left: string, right: string): string {
  if (left === '' || right === '' || SPACE.test(lastChar(left)!) || /^\s/u.test(right)) return left + right;
  if (isUnspacedScript(lastChar(left)) && isUnspacedScript(firstChar(right))) return left + right;
  return `${left} ${right}`;
}

/**
 * Joins a paragraph's next line to its text. A word broken after a hyphen at the line's end and
 * going on in lower case (`infor-` / `mation`) is joined without the hyphen; a hyphen before an
 * upper-case word or a digit (`Nord-` / `Süd`, `1990-` / `1995`) is a real one and stays, with
 * no space. A soft hyphen (U+00AD) at the end always goes.
 */
export function joinLines(text: string, next: string): string {
  // `text` is the paragraph so far: only its end is looked at (a `…$` regex scans the whole
  // string, which made joining a paragraph's lines quadratic in its length).
  const left = text.trimEnd();
  const right = next.trimStart();
  if (left.endsWith('\u00ad')) return left.slice(0, -1) + right;
  if (left.endsWith('-') && LETTER.test(lastChar(left.slice(0, -1)) ?? '')) {
    if (/^\p{Ll}/u.test(right)) return left.slice(0, -1) + right;
    if (/^[\p{Lu}\p{N}]/u.test(right)) return left + right;
  }
  return joinWithSpace(left, right);
}
