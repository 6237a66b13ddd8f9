/**
 * A deliberately small HTML reader for mammoth's output, which is well-formed: every element is
 * closed, void elements are written `<img ... />`, attribute values are double-quoted and text is
 * escaped with `&amp; &lt; &gt; &quot;`. It is not a general HTML parser.
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

/** Parses `html` into a tree under a synthetic `#root` element. Stray end tags are ignored. */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { tag: '#root', attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = (): HtmlElement => stack[stack.length - 1] ?? root;
  let last = 0;
  for (const m of html.matchAll(TOKEN)) {
    const index = m.index;
    if (index > last) top().children.push(decodeEntities(html.slice(last, index)));
    last = index + m[0].length;
    const tag = m[2]?.toLowerCase();
    if (tag === undefined) continue; // a comment
    if (m[1] === '/') {
      const at = stack.map((e) => e.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const element: HtmlElement = { tag, attrs: parseAttrs(m[3] ?? ''), children: [] };
    top().children.push(element);
    if (m[4] !== '/' && !VOID.has(tag)) stack.push(element);
  }
  if (last < html.length) top().children.push(decodeEntities(html.slice(last)));
  return root;
}
