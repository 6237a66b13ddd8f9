/**
 * XML parts as a small element tree over fast-xml-parser's ordered output, without entity
 * expansion and with namespace prefixes made canonical.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { DocumentError } from '../types.js';
import { errorMessage, type OfficeFormat } from './errors.js';

export interface XmlElement {
  /** Qualified name with the conventional prefix of its namespace (`w:p`, `a:t`), whatever the file declared. */
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const ATTRIBUTES = ':@';
const TEXT = '#text';

/**
 * Entities are never expanded by the parser (`processEntities: false`): only the five predefined
 * ones and character references are decoded here, so no DTD-declared entity can grow the text.
 * DTDs are refused outright before parsing (and by the zip guard before that).
 */
const xmlParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Word nests tables in cells, text boxes in drawings: deeper than the default 100 is legal.
  maxNestedTags: 512,
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[body] ?? whole;
  });
}

type OrderedNode = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The prefix the readers use for each namespace, whatever prefix a file declares for it: the
 * readers match qualified names (`w:p`), and a producer may write `<ns0:p>` or put WordprocessingML
 * in the default namespace. Strict OOXML (ISO 29500 strict) namespaces map to the same prefixes.
 */
const CANONICAL_PREFIX: Record<string, string> = {
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main': 'w',
  'http://purl.oclc.org/ooxml/wordprocessingml/main': 'w',
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships': 'r',
  'http://purl.oclc.org/ooxml/officeDocument/relationships': 'r',
  'http://schemas.openxmlformats.org/drawingml/2006/main': 'a',
  'http://purl.oclc.org/ooxml/drawingml/main': 'a',
  'http://schemas.openxmlformats.org/presentationml/2006/main': 'p',
  'http://purl.oclc.org/ooxml/presentationml/main': 'p',
  'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing': 'wp',
  'http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing': 'wp',
  'http://schemas.openxmlformats.org/drawingml/2006/picture': 'pic',
  'http://purl.oclc.org/ooxml/drawingml/picture': 'pic',
  'http://schemas.openxmlformats.org/drawingml/2006/diagram': 'dgm',
  'http://purl.oclc.org/ooxml/drawingml/diagram': 'dgm',
  'http://schemas.openxmlformats.org/officeDocument/2006/math': 'm',
  'http://purl.oclc.org/ooxml/officeDocument/math': 'm',
  'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc',
  'urn:schemas-microsoft-com:vml': 'v',
  'urn:schemas-microsoft-com:office:office': 'o',
  // Package relationships and content types: the readers use their names unprefixed.
  'http://schemas.openxmlformats.org/package/2006/relationships': '',
  'http://schemas.openxmlformats.org/package/2006/content-types': '',
};

type Scope = ReadonlyMap<string, string>;

/** The scope inside an element: its `xmlns` declarations mapped to the readers' prefixes. */
function scopeOf(attrs: Record<string, unknown> | undefined, parent: Scope): Scope {
  if (!attrs) return parent;
  let scope: Map<string, string> | undefined;
  for (const [name, uri] of Object.entries(attrs)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    const prefix = name === 'xmlns' ? '' : name.slice(6);
    scope ??= new Map(parent);
    scope.set(prefix, CANONICAL_PREFIX[decodeXmlText(String(uri))] ?? prefix);
  }
  return scope ?? parent;
}

function canonicalName(name: string, scope: Scope, isAttribute: boolean): string {
  const colon = name.indexOf(':');
  // An unprefixed attribute is in no namespace, whatever the default namespace is.
  if (colon < 0 && isAttribute) return name;
  const prefix = colon < 0 ? '' : name.slice(0, colon);
  const canonical = scope.get(prefix);
  if (canonical === undefined || canonical === prefix) return name;
  const local = colon < 0 ? name : name.slice(colon + 1);
  return canonical ? `${canonical}:${local}` : local;
}

function toNodes(ordered: unknown, parentScope: Scope): XmlNode[] {
  if (!Array.isArray(ordered)) return [];
  const out: XmlNode[] = [];
  for (const node of ordered as unknown[]) {
    if (!isRecord(node)) continue;
    for (const [key, value] of Object.entries(node as OrderedNode)) {
      if (key === ATTRIBUTES) continue;
      if (key === TEXT) {
        out.push(decodeXmlText(String(value)));
        continue;
      }
      if (key.startsWith('?') || key.startsWith('!')) continue;
      const rawAttrs = isRecord(node[ATTRIBUTES]) ? node[ATTRIBUTES] : undefined;
      const scope = scopeOf(rawAttrs, parentScope);
      // No prototype: an attribute named like an Object property stays a plain entry.
      const attrs: Record<string, string> = Object.create(null) as Record<string, string>;
      if (rawAttrs) for (const [name, v] of Object.entries(rawAttrs)) attrs[name.startsWith('xmlns') ? name : canonicalName(name, scope, true)] = decodeXmlText(String(v));
      out.push({ name: canonicalName(key, scope, false), attrs, children: toNodes(value, scope) });
    }
  }
  return out;
}

/** Parses one XML part into its root element. Malformed XML is a corrupt document. */
export function parseXml(xml: string, part: string, what: OfficeFormat): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) {
    throw new DocumentError('unsupported_content', `the ${what} part ${part} declares a DTD (<!DOCTYPE>), which Office packages must not contain`);
  }
  // The parser is lenient (an unclosed element just ends the part): well-formedness is checked first.
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new DocumentError('corrupt_document', `not a readable ${what} file: part ${part} is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  }
  let nodes: XmlNode[];
  try {
    nodes = toNodes(xmlParser.parse(xml), new Map());
  } catch (err) {
    throw new DocumentError('corrupt_document', `not a readable ${what} file: part ${part}: ${errorMessage(err)}`, { cause: err });
  }
  const root = nodes.find((n): n is XmlElement => typeof n !== 'string');
  if (!root) throw new DocumentError('corrupt_document', `not a readable ${what} file: part ${part} has no root element`);
  return root;
}

export function elements(el: XmlElement | undefined): XmlElement[] {
  return el ? el.children.filter((c): c is XmlElement => typeof c !== 'string') : [];
}

/** Direct children named `name`. */
export function childrenNamed(el: XmlElement | undefined, name: string): XmlElement[] {
  return elements(el).filter((c) => c.name === name);
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return elements(el).find((c) => c.name === name);
}

/** Follows a path of direct children: `path(sp, 'p:nvSpPr', 'p:nvPr', 'p:ph')`. */
export function path(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let at = el;
  for (const name of names) at = child(at, name);
  return at;
}

/** Every descendant named `name`, in document order, not descending into matches. */
export function descendants(el: XmlElement | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of elements(el)) {
    if (c.name === name) out.push(c);
    else out.push(...descendants(c, name));
  }
  return out;
}

/** An attribute's value, or `w:val` of a child element when `name` names a child: `val(pPr, 'w:pStyle')`. */
export function val(el: XmlElement | undefined, childName: string, attr = 'w:val'): string | undefined {
  return child(el, childName)?.attrs[attr];
}

export function intAttr(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** OOXML on/off properties: present without `val`, or `val` true/1/on. */
export function isOn(el: XmlElement | undefined, attr = 'w:val'): boolean {
  if (!el) return false;
  const v = el.attrs[attr];
  return v === undefined || v === 'true' || v === '1' || v === 'on';
}
