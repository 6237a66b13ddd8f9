/**
 * Runs dynamic imports one at a time. A production consumer imports once, at boot; the tests
 * start every stage's consumer in one process at once, and Jest's ESM loader (vm modules) fails
 * when two dynamic imports race for a module both depend on ("request for … is not in cache").
 */
let chain: Promise<unknown> = Promise.resolve();

export function importSerially<T>(load: () => Promise<T>): Promise<T> {
  const next = chain.then(load, load);
  chain = next.catch(() => undefined);
  return next;
}
