import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { assertValidPackage, connectTestRedis, containsSnippet, corpusManifest, fixturePath } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from './harness.js';
import { checkResponsesAgainstOpenApi } from './support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

let pipeline: Pipeline;
let base: string;

beforeAll(async () => {
  pipeline = await startPipeline();
  base = pipeline.api.url;
});
afterAll(async () => pipeline?.stop());

const PARSED_LOCALLY = /^(application\/pdf|application\/vnd\.openxmlformats)/;

describe('upload → extract → assemble → package', () => {
  const cases = corpusManifest().filter((f) => PARSED_LOCALLY.test(f.media_type) && f.has_text_layer === true && !/encrypt/i.test(f.kind) && f.snippets.length > 0);

  it.each(cases.map((c) => [c.name, c] as const))('%s yields a package with its MANIFEST snippets', async (name, entry) => {
    const res = await upload(base, [{ name, data: await readFile(fixturePath(name)) }]);
    expect(res.status).toBe(202);
    const { jobId, statusUrl } = (await res.json()) as { jobId: string; statusUrl: string };
    expect(statusUrl).toBe(`${base}/api/files/job/${jobId}`);
    const history = await pollUntilTerminal(base, jobId, 90_000);
    const final = history.at(-1)!;
    expect(final).toMatchObject({ status: 'done', phase: 'view_ready' });
    expect(final.result?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const done = history.map((h) => h.progress.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));

    const pkg = await fetch(`${base}/api/files/job/${jobId}/package`);
    expect(pkg.status).toBe(200);
    const manifest = (await pkg.json()) as { text: string; markdown: string; source: { sha256: string }; assets: { url: string; sha256: string; mediaType: string }[] };
    assertValidPackage(manifest);
    for (const snippet of entry.snippets) expect(containsSnippet(manifest.text, snippet.text)).toBe(true);
    // The Markdown answer is the package's, with asset links absolute to this backend.
    const markdown = await fetch(`${base}/api/files/job/${jobId}/markdown`);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe(manifest.markdown);
    expect(manifest.markdown).not.toMatch(/\]\(\/api\/assets\//);
    for (const asset of manifest.assets) {
      expect(asset.url.startsWith(`${base}/api/assets/`)).toBe(true);
      const bytes = await fetch(asset.url);
      expect(bytes.status).toBe(200);
      expect(bytes.headers.get('content-type')).toContain(asset.mediaType);
      expect(bytes.headers.get('etag')).toBe(`"${asset.sha256}"`);
    }
  }, 120_000);
});

describe('a large package', () => {
  it('is streamed as it is serialized: the stored manifest without its tenant, as the compact JSON res.json sends', async () => {
    // ~500 Ki characters of text, twice that with the Markdown: a package streamed (isSmallPackage says no) in many 64 Ki-character chunks.
    const paragraphs = Array.from({ length: 6_000 }, (_, i) => `Absatz ${i}: Große Dokumente werden Stück für Stück geschrieben — 大文件 🙂.`);
    const res = await upload(base, [{ name: 'long.md', data: Buffer.from(`# Lang\n\n${paragraphs.join('\n\n')}\n`) }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    expect((await pollUntilTerminal(base, jobId, 90_000)).at(-1)).toMatchObject({ status: 'done' });
    const answer = await fetch(`${base}/api/files/job/${jobId}/package`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Streamed: no length known up front (a one-chunk package is sent with its length, as res.json sends it).
    expect(answer.headers.get('content-length')).toBeNull();
    const body = await answer.text();
    const manifest = JSON.parse(body) as { text: string; tenant?: string; body: unknown[] };
    // Compact JSON, keys in the stored order: exactly what res.json would have sent.
    expect(body).toBe(JSON.stringify(manifest));
    expect(body.length).toBeGreaterThan(20 * 64 * 1024);
    expect(manifest.tenant).toBeUndefined();
    for (const paragraph of paragraphs) expect(manifest.text).toContain(paragraph);
    expect(manifest.body.length).toBeGreaterThan(6_000);
    assertValidPackage(manifest);
  }, 120_000);
});

describe('status contract', () => {
  it('404 job_not_found for an unknown id, with X-Served-By', async () => {
    const res = await fetch(`${base}/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('job_not_found');
    expect(res.headers.get('x-served-by')).toMatch(/^.+:\d+$/);
  });

  it('a corrupt PDF ends failed with a stable code, and its package answers 409', async () => {
    const res = await upload(base, [{ name: 'broken.pdf', data: await readFile(fixturePath('pdflatex-4-pages.truncated.pdf')) }]);
    const { jobId } = (await res.json()) as { jobId: string };
    const final = (await pollUntilTerminal(base, jobId)).at(-1)!;
    expect(final).toMatchObject({ status: 'failed', error: { code: 'corrupt_document' } });
    const pkg = await fetch(`${base}/api/files/job/${jobId}/package`);
    expect(pkg.status).toBe(409);
    expect(await pkg.json()).toMatchObject({ error: { code: 'package_not_ready', status: 'failed' } });
  });

  it('an encrypted PDF ends failed / encrypted_document', async () => {
    const res = await upload(base, [{ name: 'secret.pdf', data: await readFile(fixturePath('libreoffice-writer-password.pdf')) }]);
    const { jobId } = (await res.json()) as { jobId: string };
    expect((await pollUntilTerminal(base, jobId)).at(-1)).toMatchObject({ status: 'failed', error: { code: 'encrypted_document' } });
  });

  it('an encrypted PDF with its password parses; a wrong password fails encrypted_document; neither is stored', async () => {
    const pdf = await readFile(fixturePath('libreoffice-writer-password.pdf'));
    const send = async (password: string) => {
      const form = new FormData();
      form.append('password', password);
      form.append('file', new Blob([pdf]), 'secret.pdf');
      const res = await fetch(`${base}/api/files`, { method: 'POST', body: form });
      expect(res.status).toBe(202);
      return ((await res.json()) as { jobId: string }).jobId;
    };
    const right = await send('openpassword');
    expect((await pollUntilTerminal(base, right)).at(-1)).toMatchObject({ status: 'done' });
    const pkg = (await (await fetch(`${base}/api/files/job/${right}/package`)).json()) as { text: string };
    expect(pkg.text.trim().length).toBeGreaterThan(0);
    const wrong = await send('not-the-password');
    expect(wrong).not.toBe(right); // the password is part of the dedup identity (as a keyed hash)
    expect((await pollUntilTerminal(base, wrong)).at(-1)).toMatchObject({ status: 'failed', error: { code: 'encrypted_document' } });

    // In Redis the password exists only sealed: not in the queue payload, not in the record.
    const redis = connectTestRedis();
    const queue = new Queue('extract', { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
    try {
      const job = await queue.getJob(wrong);
      expect(job?.data.secrets?.password).toMatch(/^v1\./);
      for (const key of await redis.keys(`${pipeline.config.redis.prefix}*`)) {
        const type = await redis.type(key);
        const dump = type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : type === 'string' ? ((await redis.get(key)) ?? '') : '';
        expect(dump).not.toContain('not-the-password');
        expect(dump).not.toContain('openpassword');
      }
    } finally {
      await queue.close();
      await redis.quit();
    }
  });

  it('a batch of two reports completed 2 of 2', async () => {
    const res = await upload(
      base,
      [
        { name: 'a.docx', data: await readFile(fixturePath('footnotes.docx')), field: 'files' },
        { name: 'b.xlsx', data: await readFile(fixturePath('table-multiple.xlsx')), field: 'files' },
      ],
      '/api/files/batch',
    );
    expect(res.status).toBe(202);
    const body = (await res.json()) as { batchId: string; statusUrl: string; files: { index: number; name: string; jobId: string }[] };
    expect(body.files.map((f) => f.name)).toEqual(['a.docx', 'b.xlsx']);
    for (const f of body.files) await pollUntilTerminal(base, f.jobId);
    const batch = (await (await fetch(body.statusUrl)).json()) as { status: string; total: number; completed: number; failed: number };
    expect(batch).toMatchObject({ status: 'done', total: 2, completed: 2, failed: 0 });
  });
});
