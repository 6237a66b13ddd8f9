import { posix } from 'node:path';
import yauzl from 'yauzl';
import { DocumentError } from '../types.js';
import { errorMessage, type OfficeFormat } from './errors.js';
import { childrenNamed, parseXml, type XmlElement } from './xml.js';

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
