import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStore } from '@readpack/package-store';
import { jsonChunks } from '@readpack/package-store';
import { jsonStream, putJson } from '../src/json-chunks.js';

describe('jsonChunks', () => {
  it('writes exactly what JSON.stringify writes, skipping what it skips', () => {
    const value = {
      origin: { parser: 'pdfjs-dist', version: '5' },
      body: [{ type: 'paragraph', text: 'a "quoted" line\n', page: 0, bbox: [1, 2.5, 3, 4] }, { type: 'heading', level: 1, missing: undefined }],
      empty: [],
      gone: undefined,
      sparse: [undefined, 1, null],
      text: 'ünïcode ✓',
      count: 3,
    };
    expect([...jsonChunks(value)].join('')).toBe(JSON.stringify(value));
    expect([...jsonChunks({})].join('')).toBe('{}');
  });

  it('cuts a large array into bounded chunks whose bytes hash as the whole string does', async () => {
    const value = { body: Array.from({ length: 20_000 }, (_, i) => ({ type: 'paragraph', text: `paragraph ${i} of a long document` })) };
    const chunks = [...jsonChunks(value)];
    expect(chunks.length).toBeGreaterThan(5);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(70 * 1024);
    const hash = createHash('sha256');
    for await (const chunk of jsonStream(value)) hash.update(chunk as Buffer | string);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(JSON.stringify(value)).digest('hex'));
  });

  it('stores a small object (one chunk, one buffer) and a large one (streamed) as the bytes of JSON.stringify', async () => {
    const root = await mkdtemp(join(tmpdir(), 'readpack-json-chunks-'));
    try {
      const blobs = new LocalBlobStore(root);
      await blobs.init();
      const small = { origin: { parser: 'mammoth' }, body: [{ type: 'paragraph', text: 'one page' }], images: [] };
      const large = { body: Array.from({ length: 20_000 }, (_, i) => ({ type: 'paragraph', text: `paragraph ${i} of a long document` })) };
      expect([...jsonChunks(small)]).toHaveLength(1);
      for (const value of [small, large]) {
        const json = JSON.stringify(value);
        const stored = await putJson(blobs, value);
        expect(stored).toEqual({ sha256: createHash('sha256').update(json).digest('hex'), size: Buffer.byteLength(json) });
        expect((await blobs.readBuffer(stored.sha256)).toString('utf8')).toBe(json);
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
