import type { BBox, CaptionBlock, FigureBlock, Origin, TableBlock } from '@readpack/reading-package';
import { roundBox } from './geometry.js';
import type { LineFragment } from './layout-types.js';
import { mergeRowFragments, paragraphsOf, typicalPitch, type Paragraph } from './paragraphs.js';
import { readingOrder } from './xy-cut.js';

/** A figure or a ruled table, placed in the reading order by its box like a block of text. */
export interface PlacedGraphic {
  /** Its box in the page's layout frame (equal to the page box for horizontal text). */
  frameBox: BBox;
  block: FigureBlock | TableBlock;
}

export type PageUnit = { kind: 'paragraph'; paragraph: Paragraph; page: number } | { kind: 'block'; block: FigureBlock | TableBlock | CaptionBlock };

export interface PageLayoutInput {
  page: number;
  /** The page's text, furniture left out, in the layout frame (lines run left to right). */
  fragments: readonly LineFragment[];
  graphics: readonly PlacedGraphic[];
  /** Body font size: what gutters and gaps are measured in. */
  unit: number;
  /** From the layout frame back to the page (top-left origin, y down). */
  toPage: (frameBox: BBox) => BBox;
  origin: Origin;
}

/** `Figure 3:`, `Fig. 2`, `Table 1`, `Abb. 4`, `Tabelle 2`, `图 1`, `表 2`. */
const CAPTION = /^(?:fig(?:ure|\.)|table|tab\.|tabelle|abb(?:ildung|\.)|图|表)\s*[\dIVXivx一二三四五六七八九十]/iu;

type Item = { kind: 'text'; bbox: BBox; fragment: LineFragment } | { kind: 'graphic'; bbox: BBox; graphic: PlacedGraphic };

/**
 * One page's flow: text fragments and graphics in reading order (XY-cut over both), text runs
 * between graphics grouped into paragraphs, and a caption next to a figure or table attached to
 * it. Paragraph boxes come back in page coordinates.
 */
export function layoutPage(input: PageLayoutInput): PageUnit[] {
  const items: Item[] = [
    ...input.fragments.map((fragment): Item => ({ kind: 'text', bbox: fragment.bbox, fragment })),
    ...input.graphics.map((graphic): Item => ({ kind: 'graphic', bbox: graphic.frameBox, graphic })),
  ];
  const ordered = readingOrder(items, input.unit);
  const allLines = mergeRowFragments(ordered.flatMap((i) => (i.kind === 'text' ? [i.fragment] : [])));
  const pitch = typicalPitch(allLines);
  const units: (PageUnit | { kind: 'graphic'; graphic: PlacedGraphic })[] = [];
  let pending: LineFragment[] = [];
  const flush = (): void => {
    for (const paragraph of paragraphsOf(mergeRowFragments(pending), pitch, input.unit)) units.push({ kind: 'paragraph', paragraph, page: input.page });
    pending = [];
  };
  for (const item of ordered) {
    if (item.kind === 'text') {
      pending.push(item.fragment);
      continue;
    }
    flush();
    units.push({ kind: 'graphic', graphic: item.graphic });
  }
  flush();
  attachCaptions(units, input);
  return units.flatMap((u): PageUnit[] => {
    if (u.kind === 'graphic') return [{ kind: 'block', block: u.graphic.block }];
    if (u.kind === 'paragraph') return [{ ...u, paragraph: { ...u.paragraph, bbox: roundBox(input.toPage(u.paragraph.bbox)) } }];
    return [u];
  });
}

/**
 * A paragraph right after (or else right before) a graphic, close to it and starting like a
 * caption, becomes its caption. A figure keeps it in `caption` only (a figure's text is its
 * caption); a table keeps it in `caption` and as a caption block, as a table's text is its cells.
 */
function attachCaptions(units: (PageUnit | { kind: 'graphic'; graphic: PlacedGraphic })[], input: PageLayoutInput): void {
  for (let i = 0; i < units.length; i += 1) {
    const unit = units[i]!;
    if (unit.kind !== 'graphic') continue;
    for (const j of [i + 1, i - 1]) {
      const other = units[j];
      if (other?.kind !== 'paragraph') continue;
      const p = other.paragraph;
      const distance = Math.max(p.bbox[1] - unit.graphic.frameBox[3], unit.graphic.frameBox[1] - p.bbox[3]);
      if (p.marker || distance > 3 * Math.max(p.size, input.unit) || !CAPTION.test(p.text)) continue;
      const block = unit.graphic.block;
      block.caption = p.text;
      if (block.type === 'figure') {
        units.splice(j, 1);
        if (j < i) i -= 1;
      } else {
        units[j] = { kind: 'block', block: { type: 'caption', text: p.text, page: input.page, bbox: roundBox(input.toPage(p.bbox)), origin: input.origin } };
      }
      break;
    }
  }
}
