import { fileURLToPath } from 'node:url';

/**
 * A task module's compiled file next to this one. Under Jest this file runs from src/, but a
 * worker thread does not go through Jest's transform, so tasks always load the built JavaScript
 * (`npm test` builds first).
 */
export function compiledSibling(name: string): string {
  const here = fileURLToPath(import.meta.url);
  return here.replace(/\/src\/[^/]+\.ts$/, `/dist/${name}.js`).replace(/[^/]+\.js$/, `${name}.js`);
}
