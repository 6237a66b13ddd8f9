import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { jsonChunks, jsonStream } from '../src/json-chunks.js';

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
});
