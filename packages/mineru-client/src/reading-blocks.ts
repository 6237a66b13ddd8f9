import type { DocumentBlocks, FlowBlock, Origin, TableBlock } from '@readpack/reading-package';
import { parseHtmlTableCells } from './html-table.js';
import type { MappedBlock } from './map-result.js';

/**
 * MinerU's content list as reading-package blocks, so a package reads the same whichever engine
 * made it: headings keep MinerU's level, tables their spans (from MinerU's HTML), images become
 * figures with their captions, equations LaTeX formulas; running headers, footers and page
 * numbers go to furniture, as MinerU leaves them out of its own Markdown. Boxes are given only
 * where the page size is known (MinerU's own boxes are in 0–1000 of the page, not points).
 */
export function mineruBlocks(blocks: MappedBlock[], origin: Origin, assetOf: (imageName: string) => string | undefined): DocumentBlocks {
  const doc: DocumentBlocks = { body: [], furniture: [] };
  for (const block of blocks) {
    const place = { page: block.pageIndex, ...(block.bboxPt ? { bbox: block.bboxPt } : {}), origin };
    const text = block.text ?? '';
    const caption = block.captions?.join(' ');
    switch (block.type) {
      case 'heading':
        doc.body.push({ type: 'heading', level: Math.min(Math.max(block.level ?? 1, 1), 6), text, ...place });
        break;
      case 'paragraph':
      case 'other':
        if (text) doc.body.push({ type: 'paragraph', text, ...place });
        break;
      case 'list':
        doc.body.push({ type: 'list', ordered: false, items: text.split('\n').filter((t) => t.trim() !== '').map((t) => ({ type: 'list_item', text: t.trim(), ...place })), ...place });
        break;
      case 'table': {
        const grid = block.html ? parseHtmlTableCells(block.html) : { rows: 0, columns: 0, cells: [] };
        const headerRows = grid.cells.length > 0 && grid.cells.filter((c) => c.row === 0).every((c) => c.header) ? 1 : 0;
        const table: TableBlock = { type: 'table', ...grid, headerRows, ...place };
        if (caption) table.caption = caption;
        doc.body.push(table);
        pushNotes(doc.body, block, place);
        break;
      }
      case 'image': {
        const asset = block.image ? assetOf(block.image) : undefined;
        doc.body.push({ type: 'figure', ...(asset ? { asset } : {}), ...(caption ? { caption } : {}), ...place });
        pushNotes(doc.body, block, place);
        break;
      }
      case 'equation':
        doc.body.push({ type: 'formula', format: 'latex', text: text.replace(/^\$\$|\$\$$/g, '').trim(), ...place });
        break;
      case 'code':
        doc.body.push({ type: 'code', text, ...place });
        break;
      case 'header':
        doc.furniture.push({ type: 'page_header', text, ...place });
        break;
      case 'footer':
      case 'page_number':
        doc.furniture.push({ type: 'page_footer', text, ...place });
        break;
      case 'footnote':
        doc.furniture.push({ type: 'footnote', text, ...place });
        break;
    }
  }
  return doc;
}

/** A figure's or table's footnotes (MinerU `*_footnote`) are text printed under it: kept as captions. */
function pushNotes(body: FlowBlock[], block: MappedBlock, place: { page: number; origin: Origin }): void {
  for (const note of block.footnotes ?? []) body.push({ type: 'caption', text: note, ...place });
}
