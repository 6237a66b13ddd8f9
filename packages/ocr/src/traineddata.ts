import { gunzipSync } from 'node:zlib';

/**
 * A structural check of a `.traineddata` file: tesseract's own header (entry count, then one
 * 64-bit offset per entry, -1 for absent components) with every offset inside the file. Worth
 * doing before a worker loads the file: tesseract.js 7 answers a failed initialisation with an
 * exception thrown from its message handler in the main thread, which would take the whole
 * process down. Returns why the file is unusable, or undefined.
 */
export function traineddataProblem(file: Buffer): string | undefined {
  const data = file[0] === 0x1f && file[1] === 0x8b ? gunzip(file) : file;
  if (typeof data === 'string') return data;
  if (data.length < 12) return 'the file is too short';
  const entries = data.readUInt32LE(0);
  // Tesseract 5 knows 24 component types; older files have fewer.
  if (entries === 0 || entries > 64) return `not a traineddata file (header says ${entries} components)`;
  const headerEnd = 4 + entries * 8;
  if (data.length < headerEnd) return 'the file is shorter than its header';
  let present = 0;
  for (let i = 0; i < entries; i += 1) {
    const offset = Number(data.readBigInt64LE(4 + i * 8));
    if (offset === -1) continue;
    if (offset < headerEnd || offset > data.length) return `component ${i} lies outside the file (truncated?)`;
    present += 1;
  }
  return present === 0 ? 'the file has no components' : undefined;
}

function gunzip(file: Buffer): Buffer | string {
  try {
    return gunzipSync(file);
  } catch (err) {
    return `cannot decompress: ${err instanceof Error ? err.message : String(err)}`;
  }
}
