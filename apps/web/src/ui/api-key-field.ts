import { readApiKey, saveApiKey } from '../api/api-key-store.js';
import { h, replaceChildren } from './dom.js';

/**
 * The header's API-key field, shown only when the deployment requires keys (or after a 401).
 * Saving happens on change; the value is never echoed anywhere else on the page.
 */
export function mountApiKeyField(slot: HTMLElement, onChange: () => void): void {
  if (slot.querySelector('#api-key')) return;
  const input = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'Paste your key', value: readApiKey() ?? '' });
  const hint = h('span', { class: 'api-key-hint', id: 'api-key-hint' }, 'Kept in this tab only');
  input.setAttribute('aria-describedby', hint.id);
  input.addEventListener('change', () => {
    saveApiKey(input.value);
    onChange();
  });
  replaceChildren(slot, h('div', { class: 'api-key' }, h('label', { for: 'api-key' }, 'API key'), input, hint));
}
