import type { FlowBlock } from '../api/types.js';
import { h } from '../ui/dom.js';
import { blockElementId } from './block-view.js';

/**
 * The document's headings as a list of buttons. The app's routing owns the URL hash, so a jump is
 * a scroll plus focus on the heading (which makes a screen reader read it), not an anchor link.
 */
export function outlineView(body: readonly FlowBlock[]): HTMLElement {
  const headings = body.flatMap((block, index) => (block.type === 'heading' ? [{ block, index }] : []));
  if (headings.length === 0) return h('nav', { class: 'outline', 'aria-label': 'Outline' }, h('p', { class: 'muted' }, 'This document has no headings.'));
  const minLevel = Math.min(...headings.map(({ block }) => block.level));
  const buttons: HTMLButtonElement[] = [];
  const list = h(
    'ol',
    {},
    headings.map(({ block, index }) => {
      const button = h('button', { type: 'button', class: 'outline-link' }, block.text || '(untitled)');
      buttons.push(button);
      button.addEventListener('click', () => {
        const target = document.getElementById(blockElementId(block.id, index));
        if (!target) return;
        target.scrollIntoView({ block: 'start', behavior: 'auto' });
        target.focus({ preventScroll: true });
        for (const other of buttons) other.removeAttribute('aria-current');
        button.setAttribute('aria-current', 'location');
      });
      return h('li', { class: `outline-level-${Math.min(6, block.level - minLevel + 1)}` }, button);
    }),
  );
  return h('nav', { class: 'outline', 'aria-labelledby': 'outline-title' }, h('h2', { id: 'outline-title', class: 'outline-title' }, 'Outline'), list);
}
