/**
 * The baseline of `npm run bench:large`: our PDF parser alone on the parts of a split PDF, as the
 * slices of the pipeline read them (parsePdfPages, each part's first page its page in the
 * document). `node bench/dist/large-parser.js <firstPage>:<pages>:<part.pdf>…` reads one page
 * to warm up, then the parts in turn, and prints one JSON line `{ms, pages}`: the time from its
 * first part to the end of its last.
 */
import { performance } from 'node:perf_hooks';
import { parsePdfPages } from '@readpack/parsers';

const parts = process.argv.slice(2).map((arg) => {
  const [firstPage, pages, ...path] = arg.split(':');
  return { firstPage: Number(firstPage), pages: Number(pages), path: path.join(':') };
});
if (parts.length === 0 || parts.some((p) => !Number.isInteger(p.firstPage) || !Number.isInteger(p.pages))) throw new Error('usage: large-parser.js <firstPage>:<pages>:<part.pdf>…');

// pdfjs loaded and warm before the clock starts: the parser's own time, not Node's start-up.
const first = parts[0]!;
await parsePdfPages({ path: first.path, mediaType: 'application/pdf' }, { maxPages: 100_000 }, { from: first.firstPage, to: first.firstPage + 1, firstPage: first.firstPage });
const started = performance.now();
let pages = 0;
for (const { firstPage, pages: count, path } of parts) {
  const slice = await parsePdfPages({ path, mediaType: 'application/pdf' }, { maxPages: 100_000 }, { from: firstPage, to: firstPage + count, firstPage });
  if (slice.pages.length !== count) throw new Error(`${path}: read ${slice.pages.length} of ${count} pages`);
  pages += count;
}
process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, pages })}\n`);
