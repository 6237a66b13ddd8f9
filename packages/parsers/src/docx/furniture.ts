import type { FootnoteBlock, PageFooterBlock, PageHeaderBlock } from '@readpack/reading-package';
import { child, childrenNamed, relType, val, type OfficePackage, type Relationship, type XmlElement } from '../ooxml.js';
import { itemsText, readBlocks, type NoteRef, type PartContext } from './content.js';
import { formatNumber } from './numbering.js';

/** Separator lines and continuation notices live in the notes part but are not notes. */
const NOT_A_NOTE = new Set(['separator', 'continuationSeparator', 'continuationNotice']);

/** The text of a part read outside the body: no figures, and its note references are not the body's. */
async function partText(pkg: OfficePackage, part: string, root: XmlElement, ctx: PartContext): Promise<string> {
  const partCtx: PartContext = { ...ctx, rels: await pkg.relationships(part), notes: [] };
  delete partCtx.figure;
  return itemsText(readBlocks(root, partCtx));
}

/**
 * Footnotes and endnotes as furniture, labelled as Word numbers them: by order of first reference
 * in the body, in the format `w:footnotePr`/`w:endnotePr` of settings.xml give (Word's defaults:
 * 1, 2, 3 for footnotes; i, ii, iii for endnotes). Notes the body never references come last,
 * without a label.
 */
export async function readNotes(pkg: OfficePackage, kind: NoteRef['kind'], part: string | undefined, settings: XmlElement | undefined, ctx: PartContext): Promise<FootnoteBlock[]> {
  const root = part === undefined ? undefined : await pkg.xml(part);
  if (!root || part === undefined) return [];
  const notes = new Map<string, XmlElement>();
  for (const note of childrenNamed(root, kind === 'footnote' ? 'w:footnote' : 'w:endnote')) {
    const id = note.attrs['w:id'];
    if (id !== undefined && !NOT_A_NOTE.has(note.attrs['w:type'] ?? '')) notes.set(id, note);
  }
  const format = val(child(settings, kind === 'footnote' ? 'w:footnotePr' : 'w:endnotePr'), 'w:numFmt') ?? (kind === 'footnote' ? 'decimal' : 'lowerRoman');
  const order: string[] = [];
  for (const ref of ctx.notes) if (ref.kind === kind && notes.has(ref.id) && !order.includes(ref.id)) order.push(ref.id);
  const unreferenced = [...notes.keys()].filter((id) => !order.includes(id));
  const out: FootnoteBlock[] = [];
  for (const [i, id] of [...order, ...unreferenced].entries()) {
    const note = notes.get(id);
    if (!note) continue;
    const text = (await partText(pkg, part, note, ctx)).trim();
    if (text.trim() === '') continue;
    const block: FootnoteBlock = { type: 'footnote', text, origin: ctx.origin };
    if (i < order.length) block.label = formatNumber(i + 1, format);
    out.push(block);
  }
  return out;
}

/**
 * Running headers and footers (`word/header*.xml`, `word/footer*.xml`), each distinct text once:
 * a document usually repeats the same header for every section, or keeps an identical first-page
 * variant.
 */
export async function readHeadersAndFooters(pkg: OfficePackage, rels: Map<string, Relationship>, ctx: PartContext): Promise<{ headers: PageHeaderBlock[]; footers: PageFooterBlock[] }> {
  const headers: PageHeaderBlock[] = [];
  const footers: PageFooterBlock[] = [];
  const seen = new Set<string>();
  const parts = [...rels.values()]
    .filter((rel) => rel.target !== undefined && (relType(rel) === 'header' || relType(rel) === 'footer'))
    .sort((a, b) => (a.target ?? '').localeCompare(b.target ?? '', 'en', { numeric: true }));
  for (const rel of parts) {
    const part = rel.target;
    if (part === undefined || seen.has(part)) continue;
    seen.add(part);
    const root = await pkg.xml(part);
    if (!root) continue;
    const text = (await partText(pkg, part, root, ctx)).trim();
    if (text === '') continue;
    if (relType(rel) === 'header') {
      if (!headers.some((b) => b.text === text)) headers.push({ type: 'page_header', text, origin: ctx.origin });
    } else if (!footers.some((b) => b.text === text)) {
      footers.push({ type: 'page_footer', text, origin: ctx.origin });
    }
  }
  return { headers, footers };
}
