/**
 * npm run docs:examples — renders the Markdown of a few corpus documents into docs/examples/, so
 * a reader sees what a package looks like. It runs the same code as the extract and assemble
 * consumers (parseDocument, then fromBlocks through the package model) without Redis; figures are
 * written beside the Markdown and linked relatively instead of through /api/assets.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '@readpack/parsers';
import { numberBlocks, renderMarkdown } from '@readpack/reading-package';

const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const OUT = join(ROOT, 'docs', 'examples');
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif' };

const EXAMPLES = [
  { file: 'REPAIR-2022-INV-001_multipage.pdf', mediaType: 'application/pdf' },
  { file: 'word_sample.docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  { file: 'pdflatex-image.pdf', mediaType: 'application/pdf' },
];

async function main(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const index: string[] = ['# Examples', '', 'Markdown of reading packages made from corpus documents by `npm run docs:examples` (fixtures/corpus; sources and licences in its README). Figures sit beside each file.', ''];
  for (const { file, mediaType } of EXAMPLES) {
    const doc = await parseDocument({ path: join(ROOT, 'fixtures', 'corpus', file), mediaType });
    const stem = file.replace(/\.[^.]+$/, '');
    const assets = join(OUT, stem);
    mkdirSync(assets, { recursive: true });
    const names = new Map<string, string>();
    for (const image of doc.images) {
      const name = `${image.sha256.slice(0, 16)}.${EXTENSIONS[image.mediaType] ?? 'bin'}`;
      names.set(image.sha256, `${stem}/${name}`);
      writeFileSync(join(assets, name), image.data);
    }
    const blocks = { body: doc.body, furniture: doc.furniture };
    numberBlocks(blocks);
    const markdown = renderMarkdown(blocks, { assetUrl: (sha) => names.get(sha) ?? `#missing-${sha}` });
    writeFileSync(join(OUT, `${stem}.md`), markdown);
    index.push(`- [${file}](${stem}.md): ${doc.body.length} blocks, ${doc.furniture.length} furniture, ${doc.images.length} images`);
  }
  writeFileSync(join(OUT, 'README.md'), `${index.join('\n')}\n`);
  console.log(`written to ${OUT}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
