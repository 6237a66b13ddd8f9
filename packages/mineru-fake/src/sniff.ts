import { inflateRawSync } from 'node:zlib';

/**
 * The file type MinerU 3 would detect from the bytes, named the way its error message names it
 * (`Unsupported file type: <label>`). MinerU asks Magika (a model) and, for zip files, the OOXML
 * package structure; magic numbers give the same answer for the types it accepts.
 */
export function sniffSuffix(data: Uint8Array): string {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const starts = (signature: number[], offset = 0) => signature.every((b, i) => bytes[offset + i] === b);
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts([0x00, 0x00, 0x00, 0x0c, 0x6a, 0x50, 0x20, 0x20]) || starts([0xff, 0x4f, 0xff, 0x51])) return 'jp2';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'gif';
  if (starts([0x42, 0x4d])) return 'bmp';
  if (starts([0x49, 0x49, 0x2a, 0x00]) || starts([0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (starts([0x50, 0x4b, 0x03, 0x04])) return ooxmlKind(bytes) ?? 'zip';
  if (bytes.length === 0) return 'empty';
  return isText(bytes) ? 'txt' : 'unknown';
}

export const SUPPORTED_SUFFIXES: ReadonlySet<string> = new Set(['pdf', 'png', 'jpeg', 'jp2', 'webp', 'gif', 'bmp', 'jpg', 'tiff', 'docx', 'pptx', 'xlsx']);

/** docx/pptx/xlsx from the package's `[Content_Types].xml`, as MinerU does; undefined for other zips. */
function ooxmlKind(zip: Buffer): string | undefined {
  const contentTypes = zipEntry(zip, '[Content_Types].xml');
  if (contentTypes === undefined) return undefined;
  if (contentTypes.includes('wordprocessingml.document.main+xml')) return 'docx';
  if (contentTypes.includes('presentationml.presentation.main+xml')) return 'pptx';
  if (contentTypes.includes('spreadsheetml.sheet.main+xml')) return 'xlsx';
  return undefined;
}

/** One entry's text, found through the local file headers (enough for OOXML written by Office). */
function zipEntry(zip: Buffer, name: string): string | undefined {
  let offset = 0;
  while (offset + 30 <= zip.length && zip.readUInt32LE(offset) === 0x04034b50) {
    const method = zip.readUInt16LE(offset + 8);
    const compressedSize = zip.readUInt32LE(offset + 18);
    const nameLength = zip.readUInt16LE(offset + 26);
    const extraLength = zip.readUInt16LE(offset + 28);
    const entryName = zip.toString('utf8', offset + 30, offset + 30 + nameLength);
    const start = offset + 30 + nameLength + extraLength;
    // Entries streamed with a data descriptor (sizes unknown up front) end the walk.
    if (compressedSize === 0 && (zip.readUInt16LE(offset + 6) & 0x08) !== 0) return undefined;
    if (entryName === name) {
      const raw = zip.subarray(start, start + compressedSize);
      try {
        return (method === 8 ? inflateRawSync(raw) : raw).toString('utf8');
      } catch {
        // A corrupt entry is not OOXML: MinerU would not call it docx/pptx/xlsx either.
        return undefined;
      }
    }
    offset = start + compressedSize;
  }
  return undefined;
}

function isText(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 4096);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, Math.max(0, sample.length - 3)));
    return true;
  } catch {
    // Not UTF-8 text: Magika would call it something else we do not support either.
    return false;
  }
}
