import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest ancestor with a `fixtures/` folder and a package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'fixtures')) && existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
}

export function fixturePath(name: string): string {
  return join(repoRoot(), 'fixtures', 'corpus', name);
}

export interface CorpusEntry {
  name: string;
  kind: string;
  media_type: string;
  has_text_layer: boolean | null;
  page_count?: number | null;
  snippets: { text: string; page?: number }[];
  snippet_match?: string;
}

export function corpusManifest(): CorpusEntry[] {
  const raw = JSON.parse(readFileSync(fixturePath('MANIFEST.json'), 'utf8')) as { files: CorpusEntry[] };
  return raw.files;
}

/**
 * The MANIFEST's rule: compare after collapsing whitespace; for CJK text after removing it
 * (vertical writing splits lines between characters).
 */
export function containsSnippet(text: string, snippet: string): boolean {
  const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (collapse(text).includes(collapse(snippet))) return true;
  const strip = (s: string) => s.replace(/\s+/g, '');
  return /[\u3000-\u9fff]/.test(snippet) && strip(text).includes(strip(snippet));
}
