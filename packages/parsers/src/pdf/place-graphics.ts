import type { FigureBlock, Origin, TableBlock } from '@readpack/reading-package';
import type { EmbeddedImage } from '../types.js';
import { roundBox } from './geometry.js';
import type { FilledTable, PageGraphics, PositionedText, RuledTable } from './graphics-types.js';
import type { TextRun } from './layout-types.js';
import type { PlacedGraphic } from './page-layout.js';

export type FillTable = (table: RuledTable, texts: PositionedText[], origin: Origin, page: number) => FilledTable;

/**
 * Turns a page's graphics into blocks placed by their boxes: each ruled table is filled with the
 * runs inside it (those leave the text flow), each figure names its image as asset.
 */
export function placeGraphics(
  graphics: PageGraphics,
  runs: readonly TextRun[],
  page: number,
  origin: Origin,
  fill: FillTable,
): { placed: PlacedGraphic[]; runs: TextRun[]; images: EmbeddedImage[] } {
  const placed: PlacedGraphic[] = [];
  let remaining = [...runs];
  if (graphics.tables.length > 0) {
    const texts = runs.map((r) => ({ text: r.text, bbox: r.bbox }));
    const used = new Set<number>();
    for (const table of graphics.tables) {
      const filled = fill(table, texts, origin, page);
      for (const i of filled.used) used.add(i);
      const block: TableBlock = { ...filled.block, page, bbox: roundBox(table.bbox) };
      placed.push({ frameBox: table.bbox, block });
    }
    remaining = runs.filter((_, i) => !used.has(i));
  }
  const images: EmbeddedImage[] = [];
  for (const figure of graphics.figures) {
    const block: FigureBlock = { type: 'figure', asset: figure.image.sha256, page, bbox: roundBox(figure.bbox), origin };
    placed.push({ frameBox: figure.bbox, block });
    images.push(figure.image);
  }
  return { placed, runs: remaining, images };
}
