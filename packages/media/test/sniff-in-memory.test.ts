import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sniffMediaType } from '../src/index.js';

const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/', import.meta.url));
const WINDOW = 64 * 1024;

describe('sniffing a file held in memory', () => {
  let dir: string;
  const files: { name: string; path: string }[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'readpack-media-memory-'));
    for (const name of await readdir(CORPUS)) files.push({ name, path: join(CORPUS, name) });
    // Text files at the edges of the text check: a multi-byte character cut at the window's end
    // (fine when the file goes on, invalid when the file ends there), NUL bytes, not UTF-8, empty.
    const euro = Buffer.from('€');
    const synthetic: Record<string, Buffer> = {
      'notes.md': Buffer.from('# Title\n\nSome *text*.\n'),
      'page.txt': Buffer.from('<!doctype html><html><body>hi</body></html>'),
      'table.csv': Buffer.from('a,b\n1,2\n'),
      'cut-at-window.txt': Buffer.concat([Buffer.alloc(WINDOW - 1, 'a'), euro]),
      'cut-at-end.txt': Buffer.concat([Buffer.alloc(WINDOW - 2, 'a'), euro.subarray(0, 1)]),
      'ends-at-window.txt': Buffer.concat([Buffer.alloc(WINDOW - 1, 'a'), euro.subarray(0, 1)]),
      'nul.txt': Buffer.from('a\0b'),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'empty.txt': Buffer.alloc(0),
    };
    for (const [name, data] of Object.entries(synthetic)) {
      const path = join(dir, name);
      await writeFile(path, data);
      files.push({ name, path });
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same answer as sniffing the file, for every corpus file and the text edge cases', async () => {
    expect(files.length).toBeGreaterThan(20);
    for (const { name, path } of files) {
      const fromFile = await sniffMediaType(path, name);
      const fromMemory = await sniffMediaType(path, name, await readFile(path));
      expect({ name, sniffed: fromMemory }).toEqual({ name, sniffed: fromFile });
    }
  });

  it('reads nothing from disk when it has the bytes', async () => {
    const data = await readFile(join(CORPUS, 'word_sample.docx'));
    expect(await sniffMediaType(join(dir, 'no-such-file'), 'word_sample.docx', data)).toEqual({
      supported: true,
      mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      kind: 'docx',
    });
    await expect(sniffMediaType(join(dir, 'no-such-file'), 'word_sample.docx')).rejects.toThrow();
  });
});
