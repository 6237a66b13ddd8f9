import { tableGrid, type Block, type DocumentBlocks, type FlowBlock, type ListBlock, type TableBlock } from './blocks.js';

/**
 * Plain text of blocks in reading order: one block per paragraph (blocks separated by a blank
 * line), list items one per line with their marker and two spaces per nesting level, table rows
 * as tab-separated lines, figures by their caption. It is what `text` and `pages[].text` hold.
 */
export function blocksText(blocks: readonly FlowBlock[]): string {
  return blocks
    .map(blockText)
    .filter((t) => t.trim() !== '')
    .join('\n\n');
}

/**
 * The package's `text`: the main flow, then footnotes after a blank line (as in schema version
 * 1). Running headers, footers and speaker notes stay out.
 */
export function documentText(doc: DocumentBlocks): string {
  const notes = doc.furniture.filter((b) => b.type === 'footnote').map((b) => b.text.trim()).filter((t) => t !== '');
  const body = blocksText(doc.body);
  if (notes.length === 0) return body;
  return body ? `${body}\n\n${notes.join('\n')}` : notes.join('\n');
}

export function blockText(block: Block): string {
  switch (block.type) {
    case 'list':
      return listLines(block, 0).join('\n');
    case 'table':
      return tableLines(block).join('\n');
    case 'figure':
      return block.caption ?? '';
    default:
      return block.text;
  }
}

function listLines(list: ListBlock, depth: number): string[] {
  const indent = '  '.repeat(depth);
  const out: string[] = [];
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '- ';
    item.text.split('\n').forEach((line, j) => out.push(`${indent}${j === 0 ? marker : '  '}${line}`));
    for (const child of item.children ?? []) out.push(...listLines(child, depth + 1));
  });
  return out;
}

function tableLines(table: TableBlock): string[] {
  return tableGrid(table)
    .map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')).join('\t').replace(/\t+$/, ''))
    .filter((line) => line.trim() !== '');
}
