import yauzl from 'yauzl';
import { buildZip } from '@readpack/testing';

/** Every entry of a ZIP package, inflated: what a test compares a parser's output with. */
export async function zipEntries(data: Buffer | Uint8Array): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(data), { autoClose: false });
  const entries = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of (await zip.openReadStreamPromise(entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
      entries.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return entries;
}

/** The package with some parts replaced or added (a hand-edited file, a hostile variant). */
export async function rezip(data: Buffer | Uint8Array, changes: Record<string, string | Buffer | ((old: string) => string)>): Promise<Buffer> {
  const entries = await zipEntries(data);
  for (const [name, change] of Object.entries(changes)) {
    entries.set(name, typeof change === 'function' ? Buffer.from(change(entries.get(name)?.toString('utf8') ?? ''), 'utf8') : Buffer.from(change));
  }
  return buildZip([...entries].map(([name, body]) => ({ name, data: body })));
}
