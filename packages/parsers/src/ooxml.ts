/**
 * Office Open XML (DOCX, XLSX, PPTX): the checks every format's reader runs first, and the
 * package, XML, picture and table helpers the DOCX and PPTX readers share (in ooxml/).
 */
import type { Origin } from '@readpack/reading-package';
import { DocumentError } from './types.js';
import { ownVersion } from './versions.js';
import type { OfficeFormat } from './ooxml/errors.js';

export { errorMessage, type OfficeFormat } from './ooxml/errors.js';
export * from './ooxml/package.js';
export * from './ooxml/pictures.js';
export * from './ooxml/tables.js';
export * from './ooxml/xml.js';

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

/** Origin of the parts Readpack's own OOXML readers (DOCX, PPTX) produce. */
export function readerOrigin(): Origin {
  return { parser: '@readpack/parsers', version: ownVersion(), engine: 'native' };
}

/**
 * XLS and DOC are OLE2 compound files. Checked before SheetJS or word-extractor sees the bytes, for
 * the same reason as above: a clear `corrupt_document` instead of a library reading anything.
 */
export function assertOle2(data: Uint8Array, what: 'XLS' | 'DOC'): void {
  if (startsWith(data, OLE2)) return;
  if (data.length === 0) throw new DocumentError('corrupt_document', `the ${what} file is empty (0 bytes)`);
  throw new DocumentError('corrupt_document', `not a valid ${what} file: it is not an OLE2 compound file`);
}
