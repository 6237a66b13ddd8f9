import { child, childrenNamed, intAttr, path, val, type XmlElement } from '../ooxml.js';

/** What a style contributes to how a paragraph is read (after following `basedOn`). */
export interface StyleInfo {
  id: string;
  /** Lower-cased display name (`heading 1`, `caption`, `html preformatted`). */
  name: string;
  /** 0-based outline level (`w:outlineLvl`; 9 means body text). */
  outlineLevel?: number;
  numId?: string;
  ilvl?: number;
  /** The first font named in `w:rFonts`. */
  font?: string;
}

interface RawStyle {
  id: string;
  name: string;
  basedOn?: string;
  outlineLevel?: number;
  numId?: string;
  ilvl?: number;
  font?: string;
}

/** Style chains deeper than this are malformed (or cyclic); Word itself stops long before. */
const MAX_BASED_ON_DEPTH = 32;

const CODE_STYLE = /^(html preformatted|html code|macro text|plain text|source code|code( block| char)?|verbatim( char)?|preformatted( text)?)$|\bcode\b/;
const MONOSPACE_FONT = /courier|consolas|menlo|monaco|lucida console|lucida sans typewriter|source code|fira (code|mono)|mono\b|monospace|inconsolata|cascadia|andale mono|ocr a|fixedsys|sf mono|jetbrains/i;

export function isMonospaceFont(font: string | undefined): boolean {
  return font !== undefined && MONOSPACE_FONT.test(font);
}

/** The font a `w:rPr` names, for the Latin script Word shows by default. */
export function runPropertiesFont(rPr: XmlElement | undefined): string | undefined {
  const fonts = child(rPr, 'w:rFonts');
  return fonts?.attrs['w:ascii'] ?? fonts?.attrs['w:hAnsi'] ?? fonts?.attrs['w:cs'];
}

/** `word/styles.xml`, resolved through `basedOn` so a custom style inherits its parent's outline level. */
export class Styles {
  private readonly raw = new Map<string, RawStyle>();
  private readonly resolved = new Map<string, StyleInfo>();

  constructor(root: XmlElement | undefined) {
    for (const style of childrenNamed(root, 'w:style')) {
      const id = style.attrs['w:styleId'];
      if (!id) continue;
      const pPr = child(style, 'w:pPr');
      const numPr = child(pPr, 'w:numPr');
      this.raw.set(id, {
        id,
        name: (val(style, 'w:name') ?? id).toLowerCase(),
        basedOn: val(style, 'w:basedOn'),
        outlineLevel: intAttr(val(pPr, 'w:outlineLvl')),
        numId: val(numPr, 'w:numId'),
        ilvl: intAttr(val(numPr, 'w:ilvl')),
        font: runPropertiesFont(path(style, 'w:rPr')),
      });
    }
  }

  get(id: string | undefined): StyleInfo | undefined {
    if (id === undefined) return undefined;
    const cached = this.resolved.get(id);
    if (cached) return cached;
    // A paragraph may name a style styles.xml lacks (hand-made or stripped files): its id is
    // then all there is to go by, and Word's built-in ids read like their names (Heading1, Title).
    const own = this.raw.get(id) ?? { id, name: id.toLowerCase() };
    const info: StyleInfo = { id, name: own.name };
    // Nearest definition wins: walk from the style up its `basedOn` chain.
    const seen = new Set<string>();
    for (let at: RawStyle | undefined = own, depth = 0; at && !seen.has(at.id) && depth < MAX_BASED_ON_DEPTH; depth += 1) {
      seen.add(at.id);
      info.outlineLevel ??= at.outlineLevel;
      if (info.numId === undefined && at.numId !== undefined) {
        info.numId = at.numId;
        info.ilvl = at.ilvl;
      }
      info.font ??= at.font;
      at = at.basedOn === undefined ? undefined : this.raw.get(at.basedOn);
    }
    this.resolved.set(id, info);
    return info;
  }
}

/** Heading level 1–6 from a style: Title, `heading N` (7–9 clamp to 6), or an outline level. */
export function headingLevel(style: StyleInfo | undefined, directOutlineLevel: number | undefined): number | undefined {
  const name = style?.name;
  if (name === 'title') return 1;
  const named = name === undefined ? undefined : /^heading ?([1-9])$/.exec(name);
  if (named?.[1]) return Math.min(6, Number(named[1]));
  const outline = directOutlineLevel ?? style?.outlineLevel;
  if (outline !== undefined && outline >= 0 && outline <= 8) return Math.min(6, outline + 1);
  return undefined;
}

export function isCaptionStyle(style: StyleInfo | undefined): boolean {
  return style?.name === 'caption';
}

export function isCodeStyle(style: StyleInfo | undefined): boolean {
  return style !== undefined && CODE_STYLE.test(style.name);
}
