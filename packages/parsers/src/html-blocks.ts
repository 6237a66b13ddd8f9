import type { DocumentBlocks, FlowBlock, FootnoteBlock, FurnitureBlock, ListBlock, ListItemBlock, Origin, TableBlock, TableCell } from '@readpack/reading-package';
import { parseHtml, type HtmlElement, type HtmlNode } from './html.js';

/** Elements whose content is never part of the reading text. */
const SKIPPED = new Set(['script', 'style', 'head', 'template', 'noscript', 'svg', 'math', 'iframe', 'object', 'canvas', 'select', 'button', 'textarea']);
const HEADING = /^h([1-6])$/;
/** Elements that end a run of inline text: each starts a block of its own. */
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'blockquote', 'figure', 'figcaption', 'address', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'pre', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'form', 'fieldset', 'details', 'summary', 'body', 'html', 'center', 'li', 'img']);
/** Largest colspan/rowspan taken from a cell, as HTML itself caps them (colspan 1000, rowspan 65534). */
const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65_534;

/** EPUB's `epub:type` and ARIA's `role` (DPUB-ARIA) as one list of semantic words. */
function semantics(el: HtmlElement): string[] {
  return `${el.attrs['epub:type'] ?? ''} ${el.attrs.role ?? ''}`.toLowerCase().split(/\s+/).filter(Boolean);
}
const NOTE = /^(?:doc-)?(?:footnote|endnote|rearnote|note)$/;
const NOTE_LIST = /^(?:doc-)?(?:footnotes|endnotes|rearnotes)$/;
const isNoteRef = (el: HtmlElement): boolean => semantics(el).some((w) => w === 'noteref' || w === 'doc-noteref');

/** Inline text of a subtree: whitespace collapsed as a browser shows it, `<br>` as a line break, note references left out. */
function inlineText(node: HtmlNode): string {
  const parts: string[] = [];
  const walk = (n: HtmlNode): void => {
    if (typeof n === 'string') parts.push(n.replace(/[ \t\n\r\f]+/g, ' '));
    else if (isNoteRef(n)) return;
    else if (n.tag === 'br') parts.push('\n');
    else if (n.tag === 'img') {
      if (n.attrs.alt) parts.push(n.attrs.alt);
    } else if (!SKIPPED.has(n.tag)) n.children.forEach(walk);
  };
  walk(node);
  return parts.join('').replace(/ *\n */g, '\n').trim();
}

/** The text of `<pre>`, kept exactly (one leading newline dropped, as HTML does). */
function preText(node: HtmlNode): string {
  if (typeof node === 'string') return node;
  if (node.tag === 'br') return '\n';
  return node.children.map(preText).join('');
}

/** Reads HTML into blocks: the elements a reader sees as structure, everything else as paragraphs. */
class HtmlBlockReader {
  readonly body: FlowBlock[] = [];
  /** Footnotes and endnotes marked as such (EPUB `epub:type`, DPUB-ARIA `role`): kept out of the flow. */
  readonly furniture: FurnitureBlock[] = [];
  /** Inline content waiting for the end of its block (text directly in a div, body…). */
  private pending: HtmlNode[] = [];

  constructor(private readonly origin: Origin) {}

  private flush(): void {
    const text = inlineText({ tag: '#inline', attrs: {}, children: this.pending });
    this.pending = [];
    if (text !== '') this.body.push({ type: 'paragraph', text, origin: this.origin });
  }

  read(node: HtmlNode): void {
    if (typeof node === 'string' || !BLOCK.has(node.tag)) {
      if (typeof node !== 'string' && SKIPPED.has(node.tag)) return;
      // An inline element holding blocks (`<a><div>…`) is read as blocks.
      if (typeof node !== 'string' && node.children.some((c) => typeof c !== 'string' && BLOCK.has(c.tag))) {
        node.children.forEach((c) => this.read(c));
        return;
      }
      this.pending.push(node);
      return;
    }
    this.flush();
    if (this.note(node)) return;
    const heading = HEADING.exec(node.tag);
    if (heading) {
      const text = inlineText(node);
      if (text !== '') this.body.push({ type: 'heading', level: Number(heading[1]), text, origin: this.origin });
    } else if (node.tag === 'ul' || node.tag === 'ol') {
      const list = this.list(node);
      if (list.items.length > 0) this.body.push(list);
    } else if (node.tag === 'table') {
      const table = this.table(node);
      if (table) this.body.push(table);
    } else if (node.tag === 'pre') {
      const text = preText(node).replace(/^\n/, '').replace(/\s+$/, '');
      const code = node.children.find((c): c is HtmlElement => typeof c !== 'string' && c.tag === 'code');
      const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(code?.attrs.class ?? '')?.[1];
      if (text !== '') this.body.push({ type: 'code', text, ...(language ? { language } : {}), origin: this.origin });
    } else if (node.tag === 'img') {
      this.body.push({ type: 'figure', ...(node.attrs.alt ? { alt: node.attrs.alt } : {}), origin: this.origin });
    } else if (node.tag === 'p' || node.tag === 'dt' || node.tag === 'dd' || node.tag === 'figcaption' || node.tag === 'summary' || node.tag === 'address') {
      // A paragraph is inline content; images in it become figures after it (no asset: never fetched).
      this.pending = [...node.children];
      this.flush();
      this.figuresIn(node);
    } else if (node.tag !== 'hr') {
      node.children.forEach((c) => this.read(c));
    }
    this.flush();
  }

  finish(): FlowBlock[] {
    this.flush();
    return this.body;
  }

  /** A footnote, or a list of notes: footnote furniture, its leading mark as `label`. */
  private note(node: HtmlElement): boolean {
    const words = semantics(node);
    if (words.some((w) => NOTE_LIST.test(w))) {
      const items = node.tag === 'ol' || node.tag === 'ul' ? [node] : node.children.filter((c): c is HtmlElement => typeof c !== 'string' && (c.tag === 'ol' || c.tag === 'ul'));
      const notes = items.flatMap((list) => list.children.filter((c): c is HtmlElement => typeof c !== 'string' && c.tag === 'li'));
      notes.forEach((li, i) => this.pushNote(li, node.tag === 'ol' || items[0]?.tag === 'ol' ? String(i + 1) : undefined));
      if (notes.length === 0) this.pushNote(node, undefined);
      return true;
    }
    if (!words.some((w) => NOTE.test(w))) return false;
    this.pushNote(node, undefined);
    return true;
  }

  private pushNote(node: HtmlElement, fallbackLabel: string | undefined): void {
    let label = fallbackLabel;
    // The mark a note starts with (`<sup><a href="#ref1">1</a></sup>`, `<a>[2]</a>`): its label, not its text.
    const first = firstElement(node);
    let text = inlineText(node);
    if (first && (first.tag === 'sup' || first.tag === 'a')) {
      const mark = inlineText(first);
      if (/^\W*[\w*†‡§]{1,4}\W*$/u.test(mark) && text.startsWith(mark)) {
        label = mark.replace(/[^\w*†‡§]/gu, '');
        text = text.slice(mark.length).trim();
      }
    }
    if (text === '') return;
    const block: FootnoteBlock = { type: 'footnote', text, origin: this.origin };
    if (label) block.label = label;
    this.furniture.push(block);
  }

  private figuresIn(node: HtmlElement): void {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (child.tag === 'img') this.body.push({ type: 'figure', ...(child.attrs.alt ? { alt: child.attrs.alt } : {}), origin: this.origin });
      else this.figuresIn(child);
    }
  }

  private list(node: HtmlElement): ListBlock {
    const ordered = node.tag === 'ol';
    const start = ordered ? Number.parseInt(node.attrs.start ?? '', 10) : NaN;
    const items: ListItemBlock[] = [];
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (child.tag === 'ul' || child.tag === 'ol') {
        // A list directly inside a list (invalid but common): nested under the previous item.
        const nested = this.list(child);
        const previous = items[items.length - 1];
        if (previous) (previous.children ??= []).push(nested);
        else items.push(...nested.items);
        continue;
      }
      if (child.tag !== 'li') continue;
      const children: ListBlock[] = [];
      const own: HtmlNode[] = [];
      for (const part of child.children) {
        if (typeof part !== 'string' && (part.tag === 'ul' || part.tag === 'ol')) children.push(this.list(part));
        else own.push(part);
      }
      const item: ListItemBlock = { type: 'list_item', text: inlineText({ tag: 'li', attrs: {}, children: own }), origin: this.origin };
      if (children.length > 0) item.children = children;
      items.push(item);
    }
    const list: ListBlock = { type: 'list', ordered, items, origin: this.origin };
    if (Number.isInteger(start) && start !== 1) list.start = start;
    return list;
  }

  /**
   * A table with its spans, laid on a grid the way HTML's table model does: each cell takes the
   * next free column of its row, a rowspan reserves positions in the rows below. Positions no cell
   * covers (short rows) are filled with empty cells, so every grid position has exactly one cell.
   */
  private table(node: HtmlElement): TableBlock | undefined {
    const rows: { cells: HtmlElement[]; head: boolean }[] = [];
    const collect = (el: HtmlElement, head: boolean): void => {
      for (const child of el.children) {
        if (typeof child === 'string') continue;
        if (child.tag === 'tr') rows.push({ cells: child.children.filter((c): c is HtmlElement => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th')), head });
        else if (child.tag === 'thead' || child.tag === 'tbody' || child.tag === 'tfoot') collect(child, child.tag === 'thead');
      }
    };
    collect(node, false);
    if (rows.length === 0) return undefined;
    const taken = new Set<string>();
    const cells: TableCell[] = [];
    let columns = 0;
    rows.forEach((row, r) => {
      let col = 0;
      for (const el of row.cells) {
        while (taken.has(`${r},${col}`)) col += 1;
        const colSpan = clampSpan(el.attrs.colspan, MAX_COLSPAN);
        const rowSpan = Math.min(clampSpan(el.attrs.rowspan, MAX_ROWSPAN), rows.length - r);
        for (let dr = 0; dr < rowSpan; dr += 1) for (let dc = 0; dc < colSpan; dc += 1) taken.add(`${r + dr},${col + dc}`);
        const cell: TableCell = { row: r, col, rowSpan, colSpan, text: inlineText(el) };
        if (el.tag === 'th' || row.head) cell.header = true;
        cells.push(cell);
        col += colSpan;
        columns = Math.max(columns, col);
      }
    });
    for (let r = 0; r < rows.length; r += 1) {
      for (let c = 0; c < columns; c += 1) if (!taken.has(`${r},${c}`)) cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text: '' });
    }
    cells.sort((a, b) => a.row - b.row || a.col - b.col);
    // Header rows: the leading rows whose cells are all headers (a <thead>, or a row of <th>).
    let headerRows = 0;
    while (headerRows < rows.length && rows[headerRows]!.cells.length > 0 && (rows[headerRows]!.head || rows[headerRows]!.cells.every((c) => c.tag === 'th'))) headerRows += 1;
    const caption = node.children.find((c): c is HtmlElement => typeof c !== 'string' && c.tag === 'caption');
    const table: TableBlock = { type: 'table', rows: rows.length, columns, headerRows, cells, origin: this.origin };
    const captionText = caption ? inlineText(caption) : '';
    if (captionText !== '') table.caption = captionText;
    return table;
  }
}

/** The first element that holds text, depth first (the note's mark, when it has one). */
function firstElement(node: HtmlElement): HtmlElement | undefined {
  for (const child of node.children) {
    if (typeof child === 'string') {
      if (child.trim() !== '') return undefined;
      continue;
    }
    if ((child.tag === 'sup' || child.tag === 'a') && inlineText(child) !== '') return child;
    const inner = firstElement(child);
    if (inner || inlineText(child) !== '') return inner;
  }
  return undefined;
}

function clampSpan(value: string | undefined, max: number): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : 1;
}

/**
 * HTML source → blocks: `h1–h6`, `p`, nested `ul/ol/li`, `table` with spans, `pre` → code,
 * `img` → figure in `body`; footnotes and endnotes marked as such (EPUB `epub:type`, DPUB-ARIA
 * `role`) in `furniture`, their references left out of the text.
 */
export function htmlDocument(html: string, origin: Origin): DocumentBlocks {
  const root = parseHtml(html);
  const reader = new HtmlBlockReader(origin);
  root.children.forEach((c) => reader.read(c));
  return { body: reader.finish(), furniture: reader.furniture };
}

/** The body of `htmlDocument` (HTML inside Markdown). */
export function htmlBlocks(html: string, origin: Origin): FlowBlock[] {
  return htmlDocument(html, origin).body;
}
