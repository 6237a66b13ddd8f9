import { h } from './dom.js';

/**
 * One polite live region for the whole app: screen readers hear "report.pdf is ready" without
 * every progress tick being read out (the bars themselves are not live regions).
 */
let region: HTMLElement | undefined;

export function announce(message: string): void {
  if (!region) {
    region = h('div', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
    document.body.append(region);
  }
  // A change of text is what gets announced; clear first so the same message twice is heard twice.
  region.textContent = '';
  const target = region;
  window.setTimeout(() => (target.textContent = message), 50);
}
