import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCopies } from '../src/local-copies.js';

const base = await mkdtemp(join(tmpdir(), 'readpack-copies-'));
afterAll(async () => rm(base, { recursive: true, force: true }));
const sha = 'a'.repeat(64);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function copies(lingerMs: number) {
  const downloads: string[] = [];
  const store = new LocalCopies(
    async (sha256, path) => {
      downloads.push(sha256);
      await writeFile(path, `content of ${sha256}`);
    },
    lingerMs,
    base,
  );
  return { store, downloads };
}

describe('local copies of remote blobs', () => {
  it('one download for concurrent and consecutive users within the linger; deleted after it', async () => {
    const { store, downloads } = copies(200);
    const paths = await Promise.all([1, 2, 3].map(() => store.with(sha, async (path) => (await readFile(path, 'utf8'), path))));
    const path = await store.with(sha, async (p) => p);
    expect(new Set([...paths, path]).size).toBe(1);
    expect(downloads).toEqual([sha]);
    expect(existsSync(path)).toBe(true);
    await sleep(400);
    expect(existsSync(path)).toBe(false);
    await store.with(sha, async () => undefined);
    expect(downloads).toEqual([sha, sha]);
    await store.clear();
  });

  it('a failing user removes the copy at once; a failed download leaves nothing', async () => {
    const { store } = copies(60_000);
    let seen = '';
    await expect(store.with(sha, async (path) => ((seen = path), Promise.reject(new Error('parse failed'))))).rejects.toThrow('parse failed');
    expect(existsSync(seen)).toBe(false);
    const broken = new LocalCopies(async (_sha, path) => (await writeFile(path, 'half'), Promise.reject(new Error('network'))), 0, base);
    await expect(broken.with(sha, async () => 'unused')).rejects.toThrow('network');
    expect(existsSync(broken.dir) ? await readdir(broken.dir) : []).toEqual([]);
  });
});
