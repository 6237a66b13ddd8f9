import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { FlowBlock, FurnitureBlock } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { decodeEntities } from './html.js';
import { htmlDocument } from './html-blocks.js';
import { assertTableSize } from './limits.js';
import { assertOfficeOpenXml } from './ooxml.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument, type PartOrigin } from './types.js';
import { ownVersion } from './versions.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';
import { readZipTexts } from './zip-entries.js';

const CONTENT_TYPES = new Set(['application/xhtml+xml', 'text/html']);
/** Font obfuscation (IDPF, Adobe) is listed in encryption.xml too, and hides nothing of the text. */
const FONT_OBFUSCATION = /http:\/\/www\.idpf\.org\/2008\/embedding|http:\/\/ns\.adobe\.com\/pdf\/enc#RC/;

const tagAttribute = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(tag);
  const value = m?.[1] ?? m?.[2];
  return value === undefined ? undefined : decodeEntities(value);
};

/** A manifest href, relative to the package document, as a ZIP entry name. */
function entryName(opfDir: string, href: string): string {
  let path = href.split('#')[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: take the href as written.
  }
  return posix.normalize(posix.join(opfDir, path)).replace(/^\/+/, '');
}

/**
 * EPUB (2 and 3) read natively: container.xml names the package document (OPF), whose spine lists
 * the content documents in reading order; each XHTML document is read by the HTML block reader
 * (headings, paragraphs, lists, tables, code), images as figures without asset, footnotes and
 * endnotes (`epub:type`) as footnote furniture. LibreOffice has no
 * EPUB import filter, so this is the only way in. The ZIP passes the zip-bomb guard first; a book
 * whose content is encrypted (DRM) fails with `encrypted_document`.
 */
export async function parseEpub(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOfficeOpenXml(buffer, 'EPUB');
  await assertSafeOfficeZip(buffer, 'EPUB', limits);
  const texts = await readZipTexts(buffer, (name) => !/\.(png|jpe?g|gif|svg|webp|ttf|otf|woff2?|mp3|mp4|css)$/i.test(name));
  const container = texts.get('META-INF/container.xml');
  const rootTag = container ? /<(?:\w+:)?rootfile\b[^>]*>/.exec(container)?.[0] : undefined;
  const opfPath = rootTag ? tagAttribute(rootTag, 'full-path') : undefined;
  const opf = opfPath ? texts.get(opfPath) : undefined;
  if (!opfPath || opf === undefined) throw new DocumentError('corrupt_document', 'not a readable EPUB file: no package document (META-INF/container.xml → rootfile)');
  const opfDir = posix.dirname(opfPath) === '.' ? '' : posix.dirname(opfPath);

  const items = new Map<string, { href: string; type: string }>();
  for (const [tag] of opf.matchAll(/<(?:\w+:)?item\b[^>]*>/g)) {
    const id = tagAttribute(tag, 'id');
    const href = tagAttribute(tag, 'href');
    if (id && href) items.set(id, { href: entryName(opfDir, href), type: tagAttribute(tag, 'media-type') ?? '' });
  }
  const spine = [...opf.matchAll(/<(?:\w+:)?itemref\b[^>]*>/g)]
    .map(([tag]) => items.get(tagAttribute(tag, 'idref') ?? ''))
    .filter((item): item is { href: string; type: string } => item !== undefined && CONTENT_TYPES.has(item.type));
  if (spine.length === 0) throw new DocumentError('empty_document', 'the EPUB file has no content documents in its spine');

  const encryption = texts.get('META-INF/encryption.xml');
  if (encryption) {
    for (const [data] of encryption.matchAll(/<(?:\w+:)?EncryptedData\b[\s\S]*?<\/(?:\w+:)?EncryptedData>/g)) {
      const uri = /<(?:\w+:)?CipherReference\b[^>]*URI\s*=\s*"([^"]*)"/.exec(data)?.[1];
      if (!FONT_OBFUSCATION.test(data) && uri && spine.some((item) => item.href === entryName('', uri))) {
        throw new DocumentError('encrypted_document', 'the EPUB file is encrypted (DRM)');
      }
    }
  }

  const origin: PartOrigin = { parser: 'readpack-epub', version: ownVersion(), engine: 'native' };
  const body: FlowBlock[] = [];
  const furniture: FurnitureBlock[] = [];
  for (const item of spine) {
    const html = texts.get(item.href);
    if (html === undefined) continue; // listed but absent: the rest of the book is still readable
    const chapter = htmlDocument(html, origin);
    for (const block of chapter.body) {
      if (block.type === 'table') assertTableSize('a table', block.rows, block.columns, limits);
      body.push(block);
    }
    furniture.push(...chapter.furniture);
  }
  if (body.length === 0) throw new DocumentError('empty_document', 'the EPUB file has no text');
  return parsedDocument({ origin, body, furniture });
}
