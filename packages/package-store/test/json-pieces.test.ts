import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonChunks, makeJson } from '../src/index.js';

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Values JSON.stringify treats specially, at every depth the serializer handles apart. */
const tricky = {
  origin: { parser: 'pdfjs-dist', version: '5', nested: { deeper: [1, { x: [] }], empty: {} } },
  body: [{ type: 'paragraph', text: 'a "quoted" line\n\twith\\escapes\u2028', page: 0, bbox: [1, 2.5, 3, 4] }, { type: 'heading', level: 1, missing: undefined }, [], {}, [[1, [2]]]],
  empty: [],
  emptyObject: {},
  gone: undefined,
  fn: () => 1,
  sparse: [undefined, 1, null, () => 2],
  when: new Date(Date.UTC(2026, 11, 3)),
  text: 'ünïcode ✓ 中文 🙂',
  count: 3,
  flag: false,
  nothing: null,
};

describe('jsonChunks', () => {
  it.each([0, 1] as const)('writes exactly what JSON.stringify(value, null, %i) writes, skipping what it skips', (indent) => {
    expect([...jsonChunks(tricky, indent)].join('')).toBe(JSON.stringify(tricky, null, indent));
    expect([...jsonChunks({}, indent)].join('')).toBe('{}');
    expect([...jsonChunks({ only: undefined }, indent)].join('')).toBe(JSON.stringify({ only: undefined }, null, indent));
  });

  it.each([0, 1] as const)('cuts long strings and arrays into bounded chunks, never between the halves of a surrogate pair (indent %i)', (indent) => {
    // 🙂 is two UTF-16 units: with an odd prefix, piece boundaries fall inside pairs unless they are moved.
    for (const prefix of ['', 'x']) {
      const value = { text: `${prefix}${'🙂'.repeat(1_500_000)}`, body: Array.from({ length: 20_000 }, (_, i) => ({ type: 'paragraph', text: `paragraph ${i}` })) };
      const chunks = [...jsonChunks(value, indent)];
      expect(chunks.length).toBeGreaterThan(10);
      // A piece of the long string may top up a chunk just short of the limit.
      expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(64 * 1024 + 1024 * 1024 + 64);
      expect(chunks.every((c) => c.length > 0)).toBe(true);
      expect(sha(chunks.join(''))).toBe(sha(JSON.stringify(value, null, indent)));
    }
  });
});

describe('makeJson', () => {
  it('keeps one chunk as a buffer, writes more to the spill file, both hashed with the trailer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readpack-json-pieces-'));
    try {
      const small = { text: 'one page' };
      const made = await makeJson(jsonChunks(small, 1), '\n', join(dir, 'small.json'));
      const expectedSmall = `${JSON.stringify(small, null, 1)}\n`;
      expect(made).toEqual({ kind: 'buffer', bytes: Buffer.from(expectedSmall), size: expectedSmall.length, sha256: sha(expectedSmall) });
      expect(existsSync(join(dir, 'small.json'))).toBe(false);

      const large = { body: Array.from({ length: 20_000 }, (_, i) => ({ text: `paragraph ${i} of a long document` })) };
      const expectedLarge = Buffer.from(`${JSON.stringify(large, null, 1)}\n`);
      const spilled = await makeJson(jsonChunks(large, 1), '\n', join(dir, 'large.json'));
      expect(spilled).toEqual({ kind: 'file', path: join(dir, 'large.json'), size: expectedLarge.length, sha256: sha(expectedLarge) });
      expect((await readFile(join(dir, 'large.json'))).equals(expectedLarge)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves no spill file when serializing fails half-way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readpack-json-pieces-'));
    try {
      const failing = function* (): Generator<string> {
        yield '{"a":';
        yield '1,';
        throw new Error('serializer broke');
      };
      await expect(makeJson(failing(), '\n', join(dir, 'broken.json'))).rejects.toThrow('serializer broke');
      expect(existsSync(join(dir, 'broken.json'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
