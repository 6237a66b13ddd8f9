import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { PageGraphics } from './graphics-types.js';
import { pageFigures } from './graphics/images.js';
import { findRuledTables } from './graphics/lattice.js';
import { walkOperatorList } from './graphics/operator-walk.js';
import { mergeRulings } from './graphics/rulings.js';

export { fillRuledTable } from './graphics/fill.js';
export { textItemBoxes } from './graphics/text-boxes.js';

/**
 * Reads a page's embedded images and ruled tables from its operator list (one
 * `getOperatorList()`, the main cost). Boxes are in top-left-origin page points of the page's
 * viewport at scale 1, the frame `getTextContent()` boxes are put in by `textItemBoxes`.
 */
export async function readPageGraphics(page: PDFPageProxy, pageIndex: number, options: { maxImageBytes: number }): Promise<PageGraphics> {
  // pdfjs is loaded already (the caller has a page); imported here so other parsers never pay for it.
  const { AnnotationMode, OPS } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // Annotations left out: form-field boxes are not tables and stamps are not the page's figures.
  const operatorList = await page.getOperatorList({ annotationMode: AnnotationMode.DISABLE });
  const viewport = page.getViewport({ scale: 1 });
  const { images, segments, art } = walkOperatorList(operatorList, viewport.transform, OPS);
  const tables = findRuledTables(mergeRulings(segments), art);
  const figures = await pageFigures(page, pageIndex, images, options);
  return { figures, tables };
}
