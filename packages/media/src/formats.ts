import type { FileHandle } from 'node:fs/promises';

/**
 * Legacy and open document formats: OLE2 compound files (XLS, DOC, PPT) told apart by the streams
 * their directory holds, ODF and EPUB by what file-type reads from their `mimetype` entry, RTF by
 * its magic, HTML by its opening tag. Kept apart from index.ts so the other formats' detection
 * can change beside it.
 */

/** Media types of the formats this module adds, and how each is read. */
export const LEGACY_MEDIA_TYPES = {
  // Read by our own parsers: SheetJS (XLS, ODS), word-extractor (DOC), the HTML reader (HTML, EPUB).
  'application/vnd.ms-excel': 'spreadsheet',
  'application/vnd.oasis.opendocument.spreadsheet': 'spreadsheet',
  'application/msword': 'doc',
  // LibreOffice has no EPUB import filter: its XHTML is read by our HTML reader.
  'application/epub+zip': 'epub',
  'text/html': 'text',
  'text/tab-separated-values': 'text',
  // Converted to PDF by LibreOffice (the convert stage), then read as a PDF.
  'application/vnd.ms-powerpoint': 'convert',
  'application/rtf': 'convert',
  'application/vnd.oasis.opendocument.text': 'convert',
  'application/vnd.oasis.opendocument.presentation': 'convert',
} as const;

/** What file-type answers for every OLE2 compound file, whatever it holds. */
export const CFB_MEDIA_TYPE = 'application/x-cfb';

/**
 * Stream names of the OLE2 directory that make the file what it is (MS-XLS: `Workbook`, or `Book`
 * for BIFF5; MS-DOC: `WordDocument`; MS-PPT: `PowerPoint Document`). An encrypted OOXML file is
 * an OLE2 file too (`EncryptionInfo` + `EncryptedPackage`): it matches none and stays refused.
 */
const OLE2_STREAMS: [string, keyof typeof LEGACY_MEDIA_TYPES][] = [
  ['Workbook', 'application/vnd.ms-excel'],
  ['Book', 'application/vnd.ms-excel'],
  ['WordDocument', 'application/msword'],
  ['PowerPoint Document', 'application/vnd.ms-powerpoint'],
];

/** Directory sectors followed at most: a real directory of a document has a handful. */
const MAX_DIRECTORY_SECTORS = 256;
const END_OF_CHAIN = 0xfffffffe;

/**
 * Names in the root storage of an OLE2 compound file (MS-CFB), read from the header, the FAT
 * sectors the header lists (the first 109, which cover files up to ~7 GB at 512-byte sectors) and
 * the directory chain, without reading the whole file. Undefined when the structure is not sound.
 */
export async function ole2StreamNames(handle: FileHandle): Promise<string[] | undefined> {
  const header = Buffer.alloc(512);
  if ((await handle.read(header, 0, 512, 0)).bytesRead < 512) return undefined;
  const shift = header.readUInt16LE(30);
  if (shift !== 9 && shift !== 12) return undefined;
  const sectorSize = 1 << shift;
  const offsetOf = (sector: number) => (sector + 1) * sectorSize;
  const difat = Array.from({ length: 109 }, (_, i) => header.readUInt32LE(76 + 4 * i));
  const perFatSector = sectorSize / 4;
  const fatCache = new Map<number, Buffer>();
  const next = async (sector: number): Promise<number | undefined> => {
    const fatIndex = Math.floor(sector / perFatSector);
    const fatSector = difat[fatIndex];
    if (fatSector === undefined || fatSector >= 0xfffffffa) return undefined;
    let fat = fatCache.get(fatSector);
    if (!fat) {
      fat = Buffer.alloc(sectorSize);
      if ((await handle.read(fat, 0, sectorSize, offsetOf(fatSector))).bytesRead < sectorSize) return undefined;
      fatCache.set(fatSector, fat);
    }
    return fat.readUInt32LE((sector % perFatSector) * 4);
  };
  const names: string[] = [];
  let sector: number | undefined = header.readUInt32LE(48);
  const entry = Buffer.alloc(sectorSize);
  for (let n = 0; sector !== undefined && sector !== END_OF_CHAIN && n < MAX_DIRECTORY_SECTORS; n += 1) {
    if (sector >= 0xfffffffa) return undefined;
    if ((await handle.read(entry, 0, sectorSize, offsetOf(sector))).bytesRead < sectorSize) return undefined;
    for (let at = 0; at + 128 <= sectorSize; at += 128) {
      const length = entry.readUInt16LE(at + 64);
      const type = entry[at + 66];
      if (length < 2 || length > 64 || (type !== 1 && type !== 2)) continue; // storages and streams only
      names.push(entry.toString('utf16le', at, at + length - 2));
    }
    sector = await next(sector);
  }
  return names;
}

/** The media type of an OLE2 file by its streams, or undefined for anything else (encrypted OOXML, MSG…). */
export async function classifyOle2(handle: FileHandle): Promise<keyof typeof LEGACY_MEDIA_TYPES | undefined> {
  const names = await ole2StreamNames(handle);
  if (!names) return undefined;
  return OLE2_STREAMS.find(([stream]) => names.includes(stream))?.[1];
}

const HTML_EXTENSIONS = new Set(['.html', '.htm', '.xhtml']);
/** An HTML document opens with a doctype or an `<html>` tag (after a BOM, whitespace or comments). */
const HTML_START = /^\ufeff?(?:\s|<!--[\s\S]*?-->)*(?:<!doctype\s+html|<html[\s>])/i;

/**
 * HTML is text: it is called HTML when its name says so or its first bytes are an HTML document.
 * It is only ever parsed, never served back (the source is not downloadable), so no script in it
 * reaches a browser from us.
 */
export function looksLikeHtml(start: string, extension: string): boolean {
  return HTML_EXTENSIONS.has(extension) || HTML_START.test(start);
}
