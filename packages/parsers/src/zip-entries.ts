import yauzl from 'yauzl';

/**
 * The text of some entries of a ZIP held in memory (UTF-8), by name. Only for archives that
 * `assertSafeOfficeZip` passed already: sizes are bounded there, so reading whole entries is safe.
 */
export async function readZipTexts(buffer: Buffer, wanted: (name: string) => boolean): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const zip = await yauzl.fromBufferPromise(buffer, { autoClose: false, strictFileNames: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName)) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of (await zip.openReadStreamPromise(entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
      found.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
    }
  } finally {
    zip.close();
  }
  return found;
}
