import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processScratchDir } from '@readpack/package-store';
import { assertValidPackage, containsSnippet, corpusManifest, fixturePath, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';

/**
 * The pipeline with STORAGE=s3 (s3rver on loopback) and a DATA_DIR of its own for the API and for
 * every consumer: a document can only travel through object storage and Redis. The full corpus
 * suites run the same way with READPACK_TEST_STORAGE=s3 (test/pipeline.test.ts, test/ocr).
 */
let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline({ STORAGE: 's3' });
});
afterAll(async () => pipeline?.stop());

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []; // never created: nothing in it
    throw error;
  });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

async function parsed(name: string, data: Uint8Array): Promise<{ text: string; assets: { url: string; sha256: string }[] }> {
  const res = await upload(pipeline.api.url, [{ name, data }]);
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  expect((await pollUntilTerminal(pipeline.api.url, jobId, 180_000)).at(-1)).toMatchObject({ status: 'done' });
  const manifest = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { text: string; assets: { url: string; sha256: string }[] };
  assertValidPackage(manifest);
  return manifest;
}

describe('STORAGE=s3, no shared DATA_DIR', () => {
  const corpus = corpusManifest();
  const text = corpus.find((f) => f.media_type === 'application/pdf' && f.has_text_layer === true && !/encrypt/i.test(f.kind) && f.snippets.length > 0)!;
  const scan = corpus.find((f) => f.media_type === 'application/pdf' && f.has_text_layer === false && f.snippets.length > 0)!;

  it('every process has its own DATA_DIR', () => {
    const dirs = new Set([pipeline.config.dataDir, ...pipeline.consumerConfigs.map((c) => c.dataDir)]);
    expect(dirs.size).toBe(1 + pipeline.consumers.length);
    expect(pipeline.config.storage.kind).toBe('s3');
  });

  it.each([
    ['text layer', text],
    ['scan (render → OCR)', scan],
  ])('%s: parsed, assets served from object storage', async (_kind, entry) => {
    const manifest = await parsed(entry.name, await readFile(fixturePath(entry.name)));
    for (const snippet of entry.snippets) expect([snippet.text, containsSnippet(manifest.text, snippet.text)]).toEqual([snippet.text, true]);
    for (const asset of manifest.assets) {
      const res = await fetch(asset.url);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  }, 240_000);

  it('a password-protected PDF parses (the sealed password and the upload reach another DATA_DIR)', async () => {
    const form = new FormData();
    form.append('password', 'openpassword');
    form.append('file', new Blob([await readFile(fixturePath('libreoffice-writer-password.pdf'))]), 'secret.pdf');
    const res = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: form });
    const { jobId } = (await res.json()) as { jobId: string };
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ status: 'done' });
  });

  it('nothing was stored on any local disk: spools empty, no blobs or packages, downloads deleted', async () => {
    for (const config of [pipeline.config, ...pipeline.consumerConfigs]) {
      expect(await filesUnder(config.dataDir)).toEqual(['secret.key']);
    }
    // Downloads linger a few seconds after their last use (consecutive pages of one PDF share one).
    await waitFor(async () => ((await filesUnder(processScratchDir())).length === 0 ? true : undefined), { timeoutMs: 15_000, what: 'no local copies left' });
  });
});
