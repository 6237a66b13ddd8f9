import { DocumentError } from './types.js';

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** `EncryptionInfo` in UTF-16LE: the stream an encrypted OOXML file keeps inside its OLE2 wrapper. */
const ENCRYPTION_INFO = Buffer.from('EncryptionInfo', 'utf16le');

function startsWith(data: Uint8Array, signature: number[]): boolean {
  return data.length >= signature.length && signature.every((byte, i) => data[i] === byte);
}

/**
 * DOCX and XLSX are ZIP packages. Checked before handing bytes to a library: SheetJS would
 * otherwise read arbitrary bytes as CSV, and a password-protected Office file (an OLE2 container
 * holding the encrypted package) deserves `encrypted_document` rather than `corrupt_document`.
 */
export function assertOfficeOpenXml(data: Uint8Array, what: 'DOCX' | 'XLSX' | 'ODS' | 'EPUB'): void {
  if (startsWith(data, ZIP)) return;
  if (startsWith(data, OLE2) && Buffer.from(data.buffer, data.byteOffset, data.byteLength).includes(ENCRYPTION_INFO)) {
    throw new DocumentError('encrypted_document', `the ${what} file is password-protected (encrypted Office package)`);
  }
  if (data.length === 0) throw new DocumentError('corrupt_document', `the ${what} file is empty (0 bytes)`);
  throw new DocumentError('corrupt_document', `not a valid ${what} file: it is not a ZIP package`);
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

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
