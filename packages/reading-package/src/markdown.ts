import { tableGrid, type DocumentBlocks, type FigureBlock, type FlowBlock, type ListBlock, type TableBlock } from './blocks.js';

export interface MarkdownOptions {
  /** URL under which a figure's asset is served (the package stores root-relative paths). */
  assetUrl: (sha256: string) => string;
}

/**
 * GitHub-flavoured Markdown of a document's blocks: headings as `#`, lists nested by
 * indentation, tables as pipe tables (as HTML when a cell spans rows or columns, which pipe
 * tables cannot express), figures as images with their caption, formulas as `$$` blocks, code
 * fenced, and footnotes at the end as `[^label]:` definitions. Running headers, footers and
 * speaker notes are left out, as in `text`.
 */
export function renderMarkdown(doc: DocumentBlocks, options: MarkdownOptions): string {
  const parts = doc.body.map((b) => blockMarkdown(b, options)).filter((p) => p !== '');
  const notes = doc.furniture.filter((b) => b.type === 'footnote');
  if (notes.length > 0) {
    parts.push(notes.map((n, i) => `[^${footnoteLabel(n.label, i)}]: ${inline(n.text).replace(/\n/g, '\n    ')}`).join('\n'));
  }
  return parts.length > 0 ? `${parts.join('\n\n')}\n` : '';
}

function footnoteLabel(label: string | undefined, index: number): string {
  const clean = (label ?? '').replace(/[^\p{L}\p{N}_-]/gu, '');
  return clean || String(index + 1);
}

function blockMarkdown(block: FlowBlock, options: MarkdownOptions): string {
  switch (block.type) {
    case 'heading':
      return `${'#'.repeat(Math.min(Math.max(block.level, 1), 6))} ${inline(block.text).replace(/\n/g, ' ')}`;
    case 'paragraph':
    case 'caption':
      return paragraph(block.text);
    case 'list':
      return listMarkdown(block, '').join('\n');
    case 'table':
      return tableMarkdown(block);
    case 'figure':
      return figureMarkdown(block, options);
    case 'code': {
      const fence = block.text.includes('```') ? '~~~~' : '```';
      return `${fence}${block.language ?? ''}\n${block.text}\n${fence}`;
    }
    case 'formula':
      return block.format === 'latex' ? `$$\n${block.text.replace(/^\$\$|\$\$$/g, '').trim()}\n$$` : paragraph(block.text);
  }
}

/** Text with the characters that would start Markdown syntax escaped. */
function inline(text: string): string {
  return text
    .replace(/([\\`*[\]<>])/g, '\\$1')
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gmu, (m) => m.replace('_', '\\_'));
}

/** A paragraph whose lines cannot be taken for headings, quotes, lists or rules. */
function paragraph(text: string): string {
  return inline(text)
    .split('\n')
    .map((line) => line.replace(/^(\s*)([#>+-]|=+$|\d+[.)](?=\s|$))/, '$1\\$2'))
    .join('\n');
}

function listMarkdown(list: ListBlock, indent: string): string[] {
  const out: string[] = [];
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '- ';
    const pad = indent + ' '.repeat(marker.length);
    const lines = paragraph(item.text || ' ').split('\n');
    lines.forEach((line, j) => out.push(j === 0 ? `${indent}${marker}${line}` : `${pad}${line}`));
    for (const child of item.children ?? []) out.push(...listMarkdown(child, pad));
  });
  return out;
}

function tableMarkdown(table: TableBlock): string {
  if (table.rows === 0 || table.columns === 0) return '';
  const caption = table.caption ? `${paragraph(table.caption)}\n\n` : '';
  const spans = table.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1);
  return caption + (spans ? htmlTable(table) : pipeTable(table));
}

function pipeCell(text: string): string {
  return inline(text).replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function pipeTable(table: TableBlock): string {
  const grid = tableGrid(table);
  // A pipe table always has a header row; without one the first row takes its place.
  const [head = [], ...rest] = grid;
  const row = (cells: string[]) => `| ${cells.map(pipeCell).join(' | ')} |`;
  return [row(head), `| ${head.map(() => '---').join(' | ')} |`, ...rest.map(row)].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function htmlTable(table: TableBlock): string {
  const byRow = new Map<number, typeof table.cells>();
  for (const cell of table.cells) byRow.set(cell.row, [...(byRow.get(cell.row) ?? []), cell]);
  const rows: string[] = [];
  for (let r = 0; r < table.rows; r += 1) {
    const cells = (byRow.get(r) ?? []).sort((a, b) => a.col - b.col).map((cell) => {
      const tag = cell.header ? 'th' : 'td';
      const attrs = `${cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : ''}${cell.colSpan > 1 ? ` colspan="${cell.colSpan}"` : ''}`;
      return `<${tag}${attrs}>${escapeHtml(cell.text).replace(/\r?\n/g, '<br>')}</${tag}>`;
    });
    rows.push(`<tr>${cells.join('')}</tr>`);
  }
  return `<table>\n${rows.join('\n')}\n</table>`;
}

function figureMarkdown(figure: FigureBlock, options: MarkdownOptions): string {
  const alt = (figure.alt ?? figure.caption ?? '').replace(/[[\]\n]/g, ' ').trim();
  const image = figure.asset ? `![${alt}](${options.assetUrl(figure.asset)})` : '';
  const caption = figure.caption ? `*${inline(figure.caption).replace(/\n/g, ' ')}*` : '';
  return [image, caption].filter((p) => p !== '').join('\n\n');
}
