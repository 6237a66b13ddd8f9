import type { FlowBlock, FurnitureBlock, ListBlock } from '../api/types.js';
import { h } from '../ui/dom.js';
import type { AssetLoader } from './asset-loader.js';
import { tableView } from './table-view.js';

/** The element id of a block, for the outline's jumps. */
export function blockElementId(blockId: string | undefined, fallback: number): string {
  return `block-${blockId ?? `n${fallback}`}`;
}

/**
 * One body block as HTML. Headings start at `<h2>`: the viewer's own title is the page's `<h1>`,
 * and a screen reader's heading list then mirrors the document's outline.
 */
export function blockView(block: FlowBlock, index: number, assets: AssetLoader): HTMLElement {
  const id = blockElementId(block.id, index);
  switch (block.type) {
    case 'heading': {
      const level = Math.min(6, Math.max(2, block.level + 1));
      return h(`h${level}` as 'h2', { id, class: 'doc-heading', tabindex: -1 }, block.text);
    }
    case 'paragraph':
      return h('p', { id }, block.text);
    case 'list':
      return withId(listView(block), id);
    case 'table':
      return withId(tableView(block), id);
    case 'figure': {
      const alt = block.alt ?? block.caption ?? '';
      return h(
        'figure',
        { id, class: 'doc-figure' },
        block.asset ? assets.image(block.asset, alt, 'figure-image') : h('p', { class: 'asset-missing' }, `Figure without a stored image${alt ? `: ${alt}` : ''}.`),
        block.caption ? h('figcaption', {}, block.caption) : null,
      );
    }
    case 'caption':
      return h('p', { id, class: 'doc-caption' }, block.text);
    case 'code':
      return h('pre', { id, class: 'doc-code' }, h('code', { 'data-language': block.language }, block.text));
    case 'formula':
      return h('pre', { id, class: 'doc-formula', 'aria-label': block.format === 'latex' ? 'Formula (LaTeX)' : 'Formula' }, h('code', {}, block.text));
  }
}

function listView(list: ListBlock): HTMLElement {
  const items = list.items.map((item) => h('li', {}, item.text, (item.children ?? []).map(listView)));
  return list.ordered ? h('ol', { start: list.start && list.start !== 1 ? list.start : null }, items) : h('ul', {}, items);
}

function withId(element: HTMLElement, id: string): HTMLElement {
  element.id = id;
  return element;
}

const FURNITURE_WORDS: Record<FurnitureBlock['type'], string> = {
  page_header: 'Page header',
  page_footer: 'Page footer',
  footnote: 'Footnote',
  note: 'Speaker note',
};

/** Running headers, footers, footnotes and notes: out of the reading flow, one list at the end. */
export function furnitureView(furniture: readonly FurnitureBlock[]): HTMLElement | null {
  if (furniture.length === 0) return null;
  return h(
    'details',
    { class: 'furniture' },
    h('summary', {}, `Headers, footers and notes (${furniture.length})`),
    h(
      'dl',
      {},
      furniture.flatMap((block) => [
        h('dt', {}, `${FURNITURE_WORDS[block.type]}${block.type === 'footnote' && block.label ? ` ${block.label}` : ''}${block.page !== undefined ? `, page ${block.page + 1}` : ''}`),
        h('dd', {}, block.text),
      ]),
    ),
  );
}
