import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { errorMessage } from './ooxml.js';
import { DocumentError, type ParseOptions } from './types.js';

/** Below this an entry cannot be a bomb whatever its ratio: normal XML often compresses 50:1 or more. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** Parts the parsers read as XML; other entries (images, binaries) are only measured. */
const XML_PART = /\.(xml|rels|vml)$/i;
/** `<!DOCTYPE` in the encodings OOXML allows (UTF-8, UTF-16LE, UTF-16BE), matched case-insensitively. */
const DOCTYPE = ['<!DOCTYPE', '<\0!\0D\0O\0C\0T\0Y\0P\0E\0', '\0<\0!\0D\0O\0C\0T\0Y\0P\0E'];
const DOCTYPE_PATTERN = new RegExp(DOCTYPE.map((p) => p.replace(/\0/g, '\\x00')).join('|'), 'i');
const OVERLAP = Math.max(...DOCTYPE.map((p) => p.length));

type ZipLimits = Pick<Required<ParseOptions>, 'maxZipEntries' | 'maxZipUncompressedBytes' | 'maxZipRatio'>;

/**
 * DOCX and XLSX are ZIP packages, and mammoth and SheetJS inflate every part they read into memory.
 * Before either sees the bytes, this reads the ZIP's central directory with yauzl, without
 * inflating anything, and refuses (`archive_too_large`) an archive with too many entries, a
 * declared total uncompressed size over the limit, or an entry compressed beyond the ratio.
 *
 * Declared sizes can lie, so every entry is then inflated once as a stream and thrown away: yauzl
 * fails an entry whose real size differs from its declared one as soon as it overruns, and the
 * total is capped again on the real bytes, so this pass never holds more than a chunk in memory.
 * The same pass rejects XML parts with a document type declaration: OPC forbids DTDs in a package,
 * and refusing them leaves no entity expansion (billion laughs) or external entity for any XML
 * reader to act on.
 */
export async function assertSafeOfficeZip(data: Buffer, what: 'DOCX' | 'XLSX' | 'ODS' | 'EPUB', limits: ZipLimits): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(data, { autoClose: false, validateEntrySizes: true, strictFileNames: false });
  } catch (err) {
    throw new DocumentError('corrupt_document', `not a readable ${what} file: ${errorMessage(err)}`, { cause: err });
  }
  try {
    if (zip.entryCount > limits.maxZipEntries) {
      throw tooLarge(what, `has ${zip.entryCount} entries, more than the limit of ${limits.maxZipEntries} (MAX_ZIP_ENTRIES)`);
    }
    const entries = await readCentralDirectory(zip, what, limits);
    let inflated = 0;
    for (const entry of entries) {
      inflated += await inflateAndScan(zip, entry, what, limits.maxZipUncompressedBytes - inflated);
    }
  } finally {
    zip.close();
  }
}

async function readCentralDirectory(zip: yauzl.ZipFile, what: string, limits: ZipLimits): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  let declared = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      entries.push(entry);
      declared += entry.uncompressedSize;
      if (declared > limits.maxZipUncompressedBytes) {
        throw tooLarge(what, `expands to more than ${limits.maxZipUncompressedBytes} bytes (MAX_ZIP_UNCOMPRESSED_BYTES)`);
      }
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > limits.maxZipRatio) {
        throw tooLarge(what, `has an entry compressed ${Math.round(ratio)}:1, beyond the limit of ${limits.maxZipRatio}:1 (MAX_ZIP_RATIO)`);
      }
    }
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    throw new DocumentError('corrupt_document', `not a readable ${what} file: ${errorMessage(err)}`, { cause: err });
  }
  return entries;
}

/** Inflates one entry into nothing; returns its real size. `budget` is what the total may still grow by. */
async function inflateAndScan(zip: yauzl.ZipFile, entry: yauzl.Entry, what: string, budget: number): Promise<number> {
  const scan = XML_PART.test(entry.fileName);
  let size = 0;
  let tail = '';
  let stream: Readable | undefined;
  try {
    stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > budget) throw tooLarge(what, `expands to more than its declared size allows (MAX_ZIP_UNCOMPRESSED_BYTES)`);
      if (scan) {
        const text = tail + chunk.toString('latin1');
        if (DOCTYPE_PATTERN.test(text)) {
          throw new DocumentError('unsupported_content', `the ${what} part ${entry.fileName} declares a DTD (<!DOCTYPE>), which Office packages must not contain`);
        }
        tail = text.slice(-OVERLAP);
      }
    }
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    // yauzl's size assertion: the entry inflates past what its directory declared (a lying bomb).
    if (/too many bytes in the stream/.test(errorMessage(err))) {
      throw tooLarge(what, `has an entry (${entry.fileName}) that inflates beyond its declared ${entry.uncompressedSize} bytes`);
    }
    throw new DocumentError('corrupt_document', `not a readable ${what} file: entry ${entry.fileName}: ${errorMessage(err)}`, { cause: err });
  } finally {
    stream?.destroy();
  }
  return size;
}

function tooLarge(what: string, detail: string): DocumentError {
  return new DocumentError('archive_too_large', `the ${what} file ${detail}`);
}
