/**
 * A small HTML reader: mammoth's well-formed output (docx.ts) and uploaded HTML pages
 * (html-blocks.ts). It builds a tree good enough to read text structure from — headings,
 * paragraphs, lists, tables, preformatted text — with HTML's implied end tags; it is not the
 * WHATWG tree builder (no foster parenting, no adoption agency), and it never executes or fetches
 * anything.
 */

export interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}

export type HtmlNode = HtmlElement | string;

const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'meta', 'link', 'wbr']);
const TOKEN = /<!--[\s\S]*?-->|<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/g;
const ATTR = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? whole;
  });
}

function parseAttrs(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of source.matchAll(ATTR)) {
    const name = m[1];
    if (name === undefined) continue;
    attrs[name.toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

/** Elements whose content is raw text up to their end tag (never markup). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);
/** Inline elements: an open `<p>` under only these is closed by a block element (HTML's implied end tag). */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var']);
const CLOSES_P = new Set(['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul', 'li', 'dd', 'dt']);
/** An open element of the first kind is ended by a new one of the second, unless a container of the third kind sits between. */
const IMPLIED: [string[], readonly string[], readonly string[]][] = [
  [['li'], ['li'], ['ul', 'ol']],
  [['dt', 'dd'], ['dt', 'dd'], ['dl']],
  [['td', 'th'], ['td', 'th', 'tr', 'tbody', 'thead', 'tfoot'], ['table']],
  [['tr'], ['tr', 'tbody', 'thead', 'tfoot'], ['table']],
  [['tbody', 'thead', 'tfoot'], ['tbody', 'thead', 'tfoot'], ['table']],
  [['option'], ['option', 'optgroup'], ['select']],
];
/** Doctype, CDATA and processing instructions: skipped. */
const DECLARATION = /^<[!?][^>]*>/;

/**
 * Parses `html` into a tree under a synthetic `#root` element. Stray end tags are ignored. Besides
 * well-formed input (mammoth's), it copes with the HTML people write: the end tags HTML lets them
 * leave out (`<p>`, `<li>`, `<td>`, `<tr>`…) are implied, a doctype or processing instruction is
 * skipped, and the content of `<script>`/`<style>` is raw text, never parsed as markup.
 */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { tag: '#root', attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = (): HtmlElement => stack[stack.length - 1] ?? root;
  const tags = (): string[] => stack.map((e) => e.tag);
  const closeImplied = (tag: string): void => {
    if (CLOSES_P.has(tag)) {
      const at = tags().lastIndexOf('p');
      if (at > 0 && stack.slice(at + 1).every((e) => INLINE.has(e.tag))) stack.length = at;
    }
    for (const [open, by, scope] of IMPLIED) {
      if (!by.includes(tag)) continue;
      const names = tags();
      const at = Math.max(...open.map((t) => names.lastIndexOf(t)));
      const fence = Math.max(...scope.map((t) => names.lastIndexOf(t)));
      if (at > 0 && at > fence) stack.length = at;
    }
  };
  const token = new RegExp(TOKEN.source, 'g');
  let last = 0;
  for (let m = token.exec(html); m !== null; m = token.exec(html)) {
    const index = m.index;
    if (index > last) pushText(top(), html.slice(last, index));
    last = index + m[0].length;
    const tag = m[2]?.toLowerCase();
    if (tag === undefined) continue; // a comment
    if (m[1] === '/') {
      const at = tags().lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    closeImplied(tag);
    const element: HtmlElement = { tag, attrs: parseAttrs(m[3] ?? ''), children: [] };
    top().children.push(element);
    if (m[4] === '/' || VOID.has(tag)) continue;
    if (RAW_TEXT.has(tag)) {
      const endTag = new RegExp(`</${tag}`, 'ig');
      endTag.lastIndex = last;
      const end = endTag.exec(html)?.index ?? -1;
      const stop = end < 0 ? html.length : end;
      if (stop > last) element.children.push(tag === 'script' || tag === 'style' ? html.slice(last, stop) : decodeEntities(html.slice(last, stop)));
      const close = end < 0 ? html.length : html.indexOf('>', end);
      last = close < 0 ? html.length : close + 1;
      token.lastIndex = last;
      continue;
    }
    stack.push(element);
  }
  if (last < html.length) pushText(top(), html.slice(last));
  return root;
}

/** Text between tags, with declarations (`<!DOCTYPE html>`, `<?xml …?>`, CDATA) dropped. */
function pushText(parent: HtmlElement, raw: string): void {
  let text = raw;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at)) {
    const declaration = DECLARATION.exec(text.slice(at));
    if (declaration) text = text.slice(0, at) + text.slice(at + declaration[0].length);
    else at += 1;
  }
  if (text !== '') parent.children.push(decodeEntities(text));
}
