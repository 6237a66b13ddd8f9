import { child, childrenNamed, intAttr, val, type XmlElement } from '../ooxml.js';

/** One level of a list definition (`w:lvl`). */
export interface ListLevel {
  ordered: boolean;
  /** `w:numFmt`: decimal, lowerLetter, upperRoman, bullet… */
  format: string;
  /** `w:lvlText`: `%1.`, `(%2)`, or the bullet character. */
  text: string;
  start: number;
}

/** Word bullets are often Symbol/Wingdings private-use characters: shown as what they draw. */
const BULLET_GLYPHS: Record<string, string> = { '\uf0b7': '•', '\uf0a7': '▪', '\uf0d8': '➢', '\uf0fc': '✓', '\uf076': '❖', o: '◦', '\uf06f': '◦' };

/** Nesting deeper than Word's nine levels is malformed. */
const MAX_LEVEL = 8;

function readLevels(abstractNum: XmlElement): Map<number, ListLevel> {
  const levels = new Map<number, ListLevel>();
  for (const lvl of childrenNamed(abstractNum, 'w:lvl')) levels.set(intAttr(lvl.attrs['w:ilvl']) ?? 0, readLevel(lvl));
  return levels;
}

function readLevel(lvl: XmlElement): ListLevel {
  const format = val(lvl, 'w:numFmt') ?? 'decimal';
  return { ordered: format !== 'bullet' && format !== 'none', format, text: val(lvl, 'w:lvlText') ?? '', start: intAttr(val(lvl, 'w:start')) ?? 1 };
}

/**
 * `word/numbering.xml`: which list level a paragraph's `w:numPr` points at, and the numbers
 * Word would show. Counters are kept per list instance (`w:num`), as Word counts them.
 */
export class Numbering {
  private readonly abstract = new Map<string, { levels: Map<number, ListLevel>; styleLink?: string }>();
  private readonly nums = new Map<string, { abstractId: string; overrides: Map<number, { start?: number; level?: ListLevel }> }>();
  private readonly counters = new Map<string, number[]>();

  constructor(
    root: XmlElement | undefined,
    /** `numId` of a numbering style, for abstract lists that only link to one (`w:numStyleLink`). */
    private readonly styleNumId: (styleId: string) => string | undefined,
  ) {
    for (const a of childrenNamed(root, 'w:abstractNum')) {
      const id = a.attrs['w:abstractNumId'];
      if (id !== undefined) this.abstract.set(id, { levels: readLevels(a), styleLink: val(a, 'w:numStyleLink') });
    }
    for (const num of childrenNamed(root, 'w:num')) {
      const id = num.attrs['w:numId'];
      const abstractId = val(num, 'w:abstractNumId');
      if (id === undefined || abstractId === undefined) continue;
      const overrides = new Map<number, { start?: number; level?: ListLevel }>();
      for (const o of childrenNamed(num, 'w:lvlOverride')) {
        const lvl = child(o, 'w:lvl');
        overrides.set(intAttr(o.attrs['w:ilvl']) ?? 0, { start: intAttr(val(o, 'w:startOverride')), level: lvl ? readLevel(lvl) : undefined });
      }
      this.nums.set(id, { abstractId, overrides });
    }
  }

  level(numId: string, ilvl: number, seen = new Set<string>()): ListLevel | undefined {
    const num = this.nums.get(numId);
    if (!num || seen.has(numId)) return undefined;
    seen.add(numId);
    const override = num.overrides.get(ilvl);
    if (override?.level) return override.start === undefined ? override.level : { ...override.level, start: override.start };
    const abstract = this.abstract.get(num.abstractId);
    if (!abstract) return undefined;
    if (abstract.levels.size === 0 && abstract.styleLink !== undefined) {
      const linked = this.styleNumId(abstract.styleLink);
      return linked === undefined ? undefined : this.level(linked, ilvl, seen);
    }
    const level = abstract.levels.get(ilvl);
    if (!level) return undefined;
    return override?.start === undefined ? level : { ...level, start: override.start };
  }

  /** Advances the list's counter for this item and returns the marker Word shows (`3.`, `b)`, `•`). */
  nextMarker(numId: string, ilvl: number): string | undefined {
    const level = this.level(numId, ilvl);
    if (!level) return undefined;
    const depth = Math.min(Math.max(ilvl, 0), MAX_LEVEL);
    const counts = this.counters.get(numId) ?? [];
    this.counters.set(numId, counts);
    counts[depth] = counts[depth] === undefined ? level.start : counts[depth] + 1;
    counts.length = depth + 1; // a new item restarts every deeper level
    if (!level.ordered) return BULLET_GLYPHS[level.text] ?? (level.text || undefined);
    return level.text.replace(/%([1-9])/g, (_, n: string) => {
      const at = Number(n) - 1;
      const format = at === depth ? level.format : (this.level(numId, at)?.format ?? 'decimal');
      return formatNumber(counts[at] ?? this.level(numId, at)?.start ?? 1, format);
    });
  }

  /** The current count of a level (after `nextMarker`), i.e. the number of the item just read. */
  current(numId: string, ilvl: number): number | undefined {
    return this.counters.get(numId)?.[ilvl];
  }
}

export function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerLetter':
      return letters(n).toLowerCase();
    case 'upperLetter':
      return letters(n);
    case 'lowerRoman':
      return roman(n).toLowerCase();
    case 'upperRoman':
      return roman(n);
    case 'decimalZero':
      return n < 10 ? `0${n}` : String(n);
    default:
      return String(n);
  }
}

/** Word's letters: A…Z, then AA…ZZ, AAA… (repeated, not base 26). */
function letters(n: number): string {
  if (n < 1) return String(n);
  const letter = String.fromCharCode(65 + ((n - 1) % 26));
  return letter.repeat(Math.floor((n - 1) / 26) + 1);
}

export function roman(n: number): string {
  if (n < 1 || n > 3999) return String(n);
  const table: [number, string][] = [
    [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'],
    [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
  ];
  let out = '';
  let rest = n;
  for (const [value, digits] of table) {
    while (rest >= value) {
      out += digits;
      rest -= value;
    }
  }
  return out;
}
