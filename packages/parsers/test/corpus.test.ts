import { describe, expect, it } from '@jest/globals';
import { containsSnippet, corpusManifest, fixturePath, type CorpusEntry } from '@readpack/testing';
import { parseDocument, type ParsedDocument } from '../src/index.js';
import { DOCX, PDF, XLSX_TYPE } from './helpers.js';

type Snippet = CorpusEntry['snippets'][number] & { sheets?: string[] };

const corpus = corpusManifest();
const pick = (mediaType: string): CorpusEntry[] =>
  corpus.filter((entry) => entry.media_type === mediaType && entry.has_text_layer === true && entry.snippets.length > 0);

const parse = (entry: CorpusEntry, password?: string): Promise<ParsedDocument> =>
  parseDocument({ path: fixturePath(entry.name), mediaType: entry.media_type, ...(password ? { password } : {}) });

const passwordOf = (entry: CorpusEntry): string | undefined =>
  (entry as CorpusEntry & { password?: { user?: string } }).password?.user;

describe('corpus: every MANIFEST snippet is found', () => {
  it('has files of every parsed kind', () => {
    expect(pick(DOCX).length).toBeGreaterThanOrEqual(4);
    expect(pick(XLSX_TYPE).length).toBeGreaterThanOrEqual(2);
    expect(pick(PDF).length).toBeGreaterThanOrEqual(5);
  });

  describe.each(pick(DOCX).map((entry) => [entry.name, entry] as const))('DOCX %s', (_name, entry) => {
    it('contains every snippet', async () => {
      const doc = await parse(entry);
      expect(doc.origin.parser).toBe('@readpack/parsers');
      for (const snippet of entry.snippets) expect({ snippet: snippet.text, found: containsSnippet(doc.text, snippet.text) }).toEqual({ snippet: snippet.text, found: true });
    });
  });

  describe.each(pick(XLSX_TYPE).map((entry) => [entry.name, entry] as const))('XLSX %s', (_name, entry) => {
    it('contains every snippet, in the table of its sheet', async () => {
      const doc = await parse(entry);
      expect(doc.origin.parser).toBe('@e965/xlsx');
      for (const snippet of entry.snippets as Snippet[]) {
        expect(containsSnippet(doc.text, snippet.text)).toBe(true);
        for (const sheet of snippet.sheets ?? []) {
          const table = doc.tables.find((t) => t.name === sheet);
          expect(table).toBeDefined();
          const cells = (table?.rows ?? []).map((row) => row.join('\t')).join('\n');
          expect({ sheet, snippet: snippet.text, found: containsSnippet(cells, snippet.text) }).toEqual({ sheet, snippet: snippet.text, found: true });
        }
      }
    });
  });

  describe.each(pick(PDF).map((entry) => [entry.name, entry] as const))('PDF %s', (_name, entry) => {
    it(
      'contains every snippet, on its page',
      async () => {
        const doc = await parse(entry, passwordOf(entry));
        expect(doc.origin).toMatchObject({ parser: 'pdfjs-dist', engine: 'text-layer' });
        const pages = doc.pages ?? [];
        if (typeof entry.page_count === 'number') expect(pages).toHaveLength(entry.page_count);
        pages.forEach((page, i) => expect(page.index).toBe(i));
        expect(doc.text).not.toMatch(/-- \d+ of \d+ --/);
        for (const snippet of entry.snippets) {
          expect({ snippet: snippet.text, found: containsSnippet(doc.text, snippet.text) }).toEqual({ snippet: snippet.text, found: true });
          if (snippet.page !== undefined) {
            const text = pages[snippet.page - 1]?.text ?? '';
            expect({ page: snippet.page, snippet: snippet.text, found: containsSnippet(text, snippet.text) }).toEqual({
              page: snippet.page,
              snippet: snippet.text,
              found: true,
            });
          }
        }
      },
      60_000,
    );
  });
});
