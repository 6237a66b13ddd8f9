/**
 * The API key lives in sessionStorage: it survives a reload and navigating inside the app, and is
 * gone when the tab closes. Never localStorage: a key left on a shared machine is a key leaked.
 */
const KEY = 'readpack.apiKey';

export function readApiKey(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveApiKey(value: string): void {
  const trimmed = value.trim();
  if (trimmed) sessionStorage.setItem(KEY, trimmed);
  else sessionStorage.removeItem(KEY);
}
