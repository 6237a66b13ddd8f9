import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { countChars } from '../src/document.js';
import { isUnspacedScript, joinLines } from '../src/pdf/text-join.js';

/*
 * countChars and joinLines run on every page and every line of a PDF, so they are written for
 * speed (document.ts, pdf/text-join.ts); these properties hold them to the plain definitions
 * they replaced, over strings mixing white space of every kind, hyphens, soft hyphens, letters,
 * digits, CJK and astral characters, and lone surrogates.
 */

const pieces = ['a', 'Z', 'é', 'ß', '7', '-', '\u00ad', ' ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u2028', '\u2029', '\u000b', '\u000c', '\r', '\u0085', '\u1680', '\u180e', '\u200a', '\u200b', '\u202f', '\u205f', '\u009f', '字', 'が', '𝐀', '😀', '\ud800', '\udc00', '.', '(', 'Σ'];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));

/** The code points of the text that are not white space (lone surrogates count one each). */
function countCharsByDefinition(value: string): number {
  return Array.from(value).filter((char) => !/^\s$/u.test(char)).length;
}

function joinLinesByDefinition(value: string, next: string): string {
  const left = value.replace(/\s+$/u, '');
  const right = next.replace(/^\s+/u, '');
  if (left.endsWith('\u00ad')) return left.slice(0, -1) + right;
  if (/\p{L}-$/u.test(left)) {
    if (/^\p{Ll}/u.test(right)) return left.slice(0, -1) + right;
    if (/^[\p{Lu}\p{N}]/u.test(right)) return left + right;
  }
  if (left === '' || right === '' || /\s$/u.test(left) || /^\s/u.test(right)) return left + right;
  // The last character as text-join.ts has always taken it (a trailing low surrogate with what precedes it).
  const low = left.charCodeAt(left.length - 1);
  const last = left.slice(low >= 0xdc00 && low <= 0xdfff && left.length > 1 ? -2 : -1);
  if (isUnspacedScript(last) && isUnspacedScript(String.fromCodePoint(right.codePointAt(0)!))) return left + right;
  return `${left} ${right}`;
}

describe('text helpers on the hot path', () => {
  it('countChars counts the code points that are not white space', () => {
    fc.assert(fc.property(text, (value) => expect(countChars(value)).toBe(countCharsByDefinition(value))), { numRuns: 5_000 });
    expect(countChars(' 字 😀\ud800x ')).toBe(4);
  });

  it('joinLines joins as its definition does', () => {
    fc.assert(fc.property(text, text, (left, right) => expect(joinLines(left, right)).toBe(joinLinesByDefinition(left, right))), { numRuns: 5_000 });
  });
});
