import { posix } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import yauzl from 'yauzl';
import type { FigureBlock, Origin, TableBlock, TableCell } from '@readpack/reading-package';
import { embeddedImage } from './document.js';
import { DocumentError, type EmbeddedImage } from './types.js';
import { ownVersion } from './versions.js';

/** The Office Open XML formats Readpack reads (what error messages call them). */
export type OfficeFormat = 'DOCX' | 'XLSX' | 'PPTX';

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** `EncryptionInfo` in UTF-16LE: the stream an encrypted OOXML file keeps inside its OLE2 wrapper. */
const ENCRYPTION_INFO = Buffer.from('EncryptionInfo', 'utf16le');

function startsWith(data: Uint8Array, signature: number[]): boolean {
  return data.length >= signature.length && signature.every((byte, i) => data[i] === byte);
}

/**
 * DOCX, XLSX and PPTX are ZIP packages. Checked before handing bytes to a library: SheetJS would
 * otherwise read arbitrary bytes as CSV, and a password-protected Office file (an OLE2 container
 * holding the encrypted package) deserves `encrypted_document` rather than `corrupt_document`.
 */
export function assertOfficeOpenXml(data: Uint8Array, what: OfficeFormat): void {
  if (startsWith(data, ZIP)) return;
  if (startsWith(data, OLE2) && Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(ENCRYPTION_INFO)) {
    throw new DocumentError('encrypted_document', `the ${what} file is password-protected (encrypted Office package)`);
  }
  if (data.length === 0) throw new DocumentError('corrupt_document', `the ${what} file is empty (0 bytes)`);
  throw new DocumentError('corrupt_document', `not a valid ${what} file: it is not a ZIP package`);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------
// XML: a small element tree over fast-xml-parser's ordered output.

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

// ---------------------------------------------------------------------------------------------
// The package: parts by name, and the relationships between them.

export interface Relationship {
  id: string;
  type: string;
  /** Package path of the target part (no leading slash); undefined for external targets. */
  target?: string;
}

/**
 * The ZIP package opened with yauzl. Parts are inflated on demand: callers run
 * `assertSafeOfficeZip` first, so every part's real size is already known to be within the limits.
 */
export class OfficePackage {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: Map<string, yauzl.Entry>,
    readonly what: OfficeFormat,
  ) {}

  static async open(data: Buffer, what: OfficeFormat): Promise<OfficePackage> {
    try {
      const zip = await yauzl.fromBufferPromise(data, { autoClose: false, validateEntrySizes: true, strictFileNames: false });
      const entries = new Map<string, yauzl.Entry>();
      for await (const entry of zip.eachEntry()) entries.set(entry.fileName.replace(/^\/+/, ''), entry);
      return new OfficePackage(zip, entries, what);
    } catch (err) {
      throw new DocumentError('corrupt_document', `not a readable ${what} file: ${errorMessage(err)}`, { cause: err });
    }
  }

  close(): void {
    this.zip.close();
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  async read(name: string): Promise<Buffer | undefined> {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    try {
      const stream = await this.zip.openReadStreamPromise(entry);
      const chunks: Buffer[] = [];
      for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
      return Buffer.concat(chunks);
    } catch (err) {
      throw new DocumentError('corrupt_document', `not a readable ${this.what} file: entry ${name}: ${errorMessage(err)}`, { cause: err });
    }
  }

  async xml(name: string): Promise<XmlElement | undefined> {
    const data = await this.read(name);
    return data ? parseXml(decodeXmlBytes(data), name, this.what) : undefined;
  }

  /** The relationships of `part` (from `dir/_rels/name.rels`), by id. */
  async relationships(part: string): Promise<Map<string, Relationship>> {
    const dir = posix.dirname(part);
    const relsName = posix.join(dir === '.' ? '' : dir, '_rels', `${posix.basename(part)}.rels`);
    const rels = new Map<string, Relationship>();
    const root = await this.xml(relsName);
    for (const rel of childrenNamed(root, 'Relationship')) {
      const id = rel.attrs.Id;
      const target = rel.attrs.Target;
      if (!id || target === undefined) continue;
      const external = rel.attrs.TargetMode === 'External';
      rels.set(id, { id, type: rel.attrs.Type ?? '', target: external ? undefined : resolveTarget(dir, target) });
    }
    return rels;
  }
}

/** `word` + `media/image1.png` → `word/media/image1.png`; `/ppt/x.xml` is package-absolute. */
export function resolveTarget(dir: string, target: string): string {
  const decoded = safeDecodeUri(target);
  const joined = decoded.startsWith('/') ? decoded : posix.join(dir === '.' ? '' : dir, decoded);
  return posix.normalize(joined).replace(/^(\.\.\/)+/, '').replace(/^\/+/, '');
}

function safeDecodeUri(target: string): string {
  try {
    return decodeURI(target);
  } catch {
    // A target with a stray `%` is a plain name, not an escape sequence.
    return target;
  }
}

/** XML parts are UTF-8 or UTF-16 (with a byte order mark). */
function decodeXmlBytes(data: Buffer): string {
  if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data[0] === 0xfe && data[1] === 0xff) return Buffer.from(data.subarray(2)).swap16().toString('utf16le');
  return data.toString('utf8').replace(/^\uFEFF/, '');
}

/** Relationship type suffixes (the part after `.../relationships/`). */
export function relType(rel: Relationship): string {
  return rel.type.slice(rel.type.lastIndexOf('/') + 1);
}

/** Media type of an image part from its extension (packages name them `image1.png` etc.). */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  emf: 'image/x-emf',
  wmf: 'image/x-wmf',
};

export function imageMediaType(name: string): string {
  return IMAGE_TYPES[posix.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

/** English Metric Units per point (914400 per inch, 72 points per inch). */
export const EMU_PER_POINT = 12700;

export function emuToPoints(emu: number): number {
  return Math.round((emu / EMU_PER_POINT) * 100) / 100;
}

// ---------------------------------------------------------------------------------------------
// Tables: Word and PowerPoint grids both leave positions no cell covers (a row starting late,
// a short row); the block model wants every position covered exactly once.

/**
 * The table block for cells already placed on a grid: positions no cell covers get an empty
 * 1×1 cell (a header cell in a header row), spans are clipped to the grid, and the cells are
 * sorted in reading order.
 */
export function completeTable(placed: TableCell[], rows: number, columns: number, headerRows: number, origin: Origin): TableBlock {
  const covered = Array.from({ length: rows }, () => new Uint8Array(columns));
  const cells: TableCell[] = [];
  for (const cell of placed) {
    if (cell.row >= rows || cell.col >= columns) continue;
    cell.rowSpan = Math.max(1, Math.min(cell.rowSpan, rows - cell.row));
    cell.colSpan = Math.max(1, Math.min(cell.colSpan, columns - cell.col));
    let clash = false;
    for (let r = cell.row; r < cell.row + cell.rowSpan && !clash; r += 1) for (let c = cell.col; c < cell.col + cell.colSpan; c += 1) if (covered[r]?.[c]) clash = true;
    // A malformed merge that overlaps another cell: the cell keeps its own position only.
    if (clash) {
      if (covered[cell.row]?.[cell.col]) continue;
      cell.rowSpan = 1;
      cell.colSpan = 1;
    }
    for (let r = cell.row; r < cell.row + cell.rowSpan; r += 1) covered[r]?.fill(1, cell.col, cell.col + cell.colSpan);
    cells.push(cell);
  }
  covered.forEach((line, row) => {
    line.forEach((taken, col) => {
      if (taken) return;
      const filler: TableCell = { row, col, rowSpan: 1, colSpan: 1, text: '' };
      if (row < headerRows) filler.header = true;
      cells.push(filler);
    });
  });
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  return { type: 'table', rows, columns, headerRows: Math.min(headerRows, rows), cells, origin };
}

/** Origin of the parts Readpack's own OOXML readers (DOCX, PPTX) produce. */
export function readerOrigin(): Origin {
  return { parser: '@readpack/parsers', version: ownVersion(), engine: 'native' };
}

/** A figure waiting for the bytes of the package part its picture shows. */
export interface PicturePart {
  block: FigureBlock;
  part: string;
}

/**
 * Reads every picture part once and gives each figure its asset: the sha256 of the part's bytes,
 * stored byte for byte. Images are named `image-N.ext` in order of first use (on the page of the
 * first figure showing them); identical bytes under two part names are one image. A reference to
 * a missing part leaves its figure without an asset.
 */
export async function readPictureParts(pkg: OfficePackage, pictures: PicturePart[]): Promise<EmbeddedImage[]> {
  const byPart = new Map<string, EmbeddedImage | undefined>();
  const bySha = new Map<string, EmbeddedImage>();
  for (const { block, part } of pictures) {
    if (!byPart.has(part)) {
      const data = await pkg.read(part);
      let image: EmbeddedImage | undefined;
      if (data) {
        const ext = posix.extname(part).slice(1).toLowerCase() || 'bin';
        const extra = block.page === undefined ? {} : { page: block.page };
        const candidate = embeddedImage(`image-${bySha.size + 1}.${ext}`, imageMediaType(part), new Uint8Array(data), extra);
        image = bySha.get(candidate.sha256) ?? candidate;
        bySha.set(image.sha256, image);
      }
      byPart.set(part, image);
    }
    const image = byPart.get(part);
    if (image) block.asset = image.sha256;
  }
  return [...bySha.values()];
}
