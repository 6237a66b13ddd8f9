import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeMinerU, type FakeMinerU } from '@readpack/mineru-fake';
import { corpusManifest, fixturePath, repoRoot, waitFor } from '@readpack/testing';

/**
 * The fake's own contract on the wire — what a client in any language sees: FastAPI's status
 * codes and bodies, MinerU's queueing, the result's JSON-in-strings, and the /__fake controls.
 */
let fake: FakeMinerU;

beforeAll(async () => {
  fake = await startFakeMinerU({ processingMs: 20 });
});
afterAll(async () => fake.close());

function form(fileName: string | undefined, fields: Record<string, string | string[]> = {}, data?: Uint8Array): FormData {
  const body = new FormData();
  if (fileName !== undefined) body.append('files', new Blob([data ?? readFileSync(fixturePath(fileName))]), fileName);
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  return body;
}

async function post(url: string, body: FormData): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/tasks`, { method: 'POST', body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function getJson(url: string): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function completedResult(fileName: string, fields: Record<string, string | string[]>): Promise<Record<string, Record<string, unknown>>> {
  const { json } = await post(fake.url, form(fileName, fields));
  const resultUrl = `${fake.url}/tasks/${String(json.task_id)}/result`;
  const done = await waitFor(async () => {
    const res = await getJson(resultUrl);
    return res.status === 200 ? res.json : undefined;
  });
  return done.results as Record<string, Record<string, unknown>>;
}

describe('the fake answers like FastAPI and MinerU', () => {
  it('422 with a pydantic error list when files is missing or a field does not parse', async () => {
    const missing = await post(fake.url, form(undefined, { backend: 'pipeline' }));
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({ detail: [{ type: 'missing', loc: ['body', 'files'], msg: 'Field required', input: null }] });
    const badBool = await post(fake.url, form('pdflatex-image.pdf', { table_enable: 'maybe' }));
    expect(badBool.status).toBe(422);
    expect(badBool.json.detail).toEqual([expect.objectContaining({ type: 'bool_parsing', loc: ['body', 'table_enable'], input: 'maybe' })]);
  });

  it('400 with MinerU\'s detail for an unsupported type (sniffed from the bytes) or backend', async () => {
    const renamed = await post(fake.url, form('report.pdf', {}, new TextEncoder().encode('not a pdf at all')));
    expect(renamed).toEqual({ status: 400, json: { detail: 'Unsupported file type: txt' } });
    const backend = await post(fake.url, form('pdflatex-image.pdf', { backend: 'gpu-magic' }));
    expect(backend.status).toBe(400);
    expect(backend.json.detail).toMatch(/^Invalid backend\. Allowed values: pipeline, vlm-engine, hybrid-engine/);
  });

  it('accepts docx, xlsx and images, and normalizes 2.x backend names', async () => {
    for (const name of ['word_sample.docx', 'Book1.xlsx', 'testocr.png', 'baiona_color.jpg']) {
      expect((await post(fake.url, form(name))).status).toBe(202);
    }
    const legacy = await post(fake.url, form('pdflatex-image.pdf', { backend: 'hybrid-auto-engine' }));
    expect(legacy.json.backend).toBe('hybrid-engine');
  });

  it('404 {"detail":"Task not found"} for unknown tasks, 405 for a wrong method', async () => {
    expect(await getJson(`${fake.url}/tasks/nope`)).toMatchObject({ status: 404, json: { detail: 'Task not found' } });
    expect(await getJson(`${fake.url}/tasks/nope/result`)).toMatchObject({ status: 404, json: { detail: 'Task not found' } });
    expect((await fetch(`${fake.url}/tasks`)).status).toBe(405);
  });

  it('returns only the requested keys, content_list and middle_json as JSON strings, images as data URIs', async () => {
    const onlyMd = await completedResult('pdflatex-image.pdf', {});
    expect(Object.keys(onlyMd)).toEqual(['pdflatex-image']);
    expect(Object.keys(onlyMd['pdflatex-image'] ?? {})).toEqual(['md_content']);

    const all = (await completedResult('pdflatex-image.pdf', { return_content_list: 'true', return_images: 'true', return_middle_json: 'true' }))['pdflatex-image'] ?? {};
    expect(typeof all.content_list).toBe('string');
    const items = JSON.parse(String(all.content_list)) as { type: string; img_path?: string; bbox: number[] }[];
    const picture = items.find((item) => item.type === 'image');
    const name = picture?.img_path?.replace(/^images\//, '') ?? '';
    expect(picture?.img_path).toMatch(/^images\/[0-9a-f]{64}\.jpg$/);
    expect((all.images as Record<string, string>)[name]).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    for (const item of items) for (const v of item.bbox) expect(v >= 0 && v <= 1000).toBe(true);
    expect(JSON.parse(String(all.middle_json))).toMatchObject({ pdf_info: [{ page_idx: 0, page_size: [595.276, 841.89] }] });
  });

  it('crops to start_page_id..end_page_id and restarts page_idx at 0, as MinerU does', async () => {
    const result = (await completedResult('REPAIR-2022-INV-001_multipage.pdf', { start_page_id: '1', end_page_id: '1', return_content_list: 'true', return_images: 'true' }))['REPAIR-2022-INV-001_multipage'] ?? {};
    const items = JSON.parse(String(result.content_list)) as { page_idx: number; text?: string; table_body?: string; img_path?: string }[];
    expect(new Set(items.map((item) => item.page_idx))).toEqual(new Set([0]));
    expect(items.some((item) => item.table_body?.includes('Bruce Wayne'))).toBe(true);
    expect(Object.keys(result.images as object).sort()).toEqual([...new Set(items.flatMap((item) => (item.img_path ? [item.img_path.slice(7)] : [])))].sort());
  });

  it('serves a generic one-block-per-page result for PDFs it has no canned result for', async () => {
    const entry = corpusManifest().find((file) => file.name === 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf');
    const result = (await completedResult('MEDRPT-2024-PAT-3847_medical_report_scan.pdf', { return_content_list: 'true' }))['MEDRPT-2024-PAT-3847_medical_report_scan'] ?? {};
    const items = JSON.parse(String(result.content_list)) as { type: string; page_idx: number; text: string }[];
    expect(items.map((item) => item.page_idx)).toEqual(Array.from({ length: entry?.page_count ?? -1 }, (_, i) => i));
    for (const item of items) expect(item.text).toMatch(/no canned result exists/);
  });

  it('fails a PDF with no readable pages like MinerU\'s loader (status failed, result 409)', async () => {
    const { json } = await post(fake.url, form('invalid.pdf'));
    const id = String(json.task_id);
    const failed = await waitFor(async () => {
      const res = await getJson(`${fake.url}/tasks/${id}/result`);
      return res.status === 409 ? res.json : undefined;
    });
    expect(failed).toMatchObject({ task_id: id, status: 'failed', message: 'Task execution failed' });
    expect(failed.error).toMatch(/^Failed to load file invalid\.pdf/);
  });
});

describe('queueing beyond max_concurrent_requests', () => {
  let slow: FakeMinerU;
  beforeAll(async () => {
    slow = await startFakeMinerU({ maxConcurrent: 1, processingMs: 60_000 });
  });
  afterAll(async () => slow.close());

  it('runs one task and keeps the others pending with queued_ahead', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { status, json } = await post(slow.url, form('pdflatex-image.pdf'));
      expect(status).toBe(202);
      expect(json.status).toBe('pending');
      ids.push(String(json.task_id));
      await waitFor(async () => ((await getJson(`${slow.url}/tasks/${ids[0]}`)).json.status === 'processing' ? true : undefined));
    }
    const statuses = await Promise.all(ids.map(async (id) => (await getJson(`${slow.url}/tasks/${id}`)).json));
    expect(statuses.map((s) => [s.status, s.queued_ahead])).toEqual([
      ['processing', 0],
      ['pending', 0],
      ['pending', 1],
    ]);
    expect((await getJson(`${slow.url}/health`)).json).toMatchObject({ queued_tasks: 2, processing_tasks: 1, max_concurrent_requests: 1 });
    expect(slow.stats).toMatchObject({ maxInFlight: 1, outstanding: 3 });
  });
});

describe('controls over HTTP, from another process', () => {
  let child: ReturnType<typeof spawn>;
  let url: string;

  beforeAll(async () => {
    // The built CLI, as other engineers' worker tests and demos start it (`npm test` builds first).
    child = spawn(process.execPath, [join(repoRoot(), 'packages/mineru-fake/dist/cli.js'), '--port', '0', '--processing-ms', '20'], { stdio: ['ignore', 'pipe', 'inherit'] });
    if (!child.stdout) throw new Error('no stdout pipe');
    const lines = createInterface({ input: child.stdout });
    url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`mineru-fake exited with ${code}`)));
      lines.on('line', (line) => {
        const match = /^mineru-fake listening on (\S+)$/.exec(line);
        if (match?.[1]) resolve(match[1]);
      });
    });
  });

  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  const control = (path: string, body: unknown = {}) => fetch(`${url}/__fake/${path}`, { method: 'POST', body: JSON.stringify(body) });

  it('injects status faults with Retry-After, then answers normally', async () => {
    expect((await control('behave', { fail: { status: 503, target: 'health', retryAfter: 2, count: 2 } })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      await res.arrayBuffer();
    }
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('fails a task on request, forgets every task on restart, and reports stats', async () => {
    const a = (await post(url, form('pdflatex-image.pdf'))).json;
    expect((await control(`tasks/${String(a.task_id)}/fail`, { error: 'told to fail' })).status).toBe(200);
    expect((await getJson(`${url}/tasks/${String(a.task_id)}/result`)).json).toMatchObject({ status: 'failed', error: 'told to fail' });
    expect((await control('restart')).status).toBe(200);
    expect((await getJson(`${url}/tasks/${String(a.task_id)}`)).status).toBe(404);

    const stats = (await getJson(`${url}/__fake/stats`)).json;
    expect(stats.submissions).toBeGreaterThanOrEqual(1);
    expect(stats.requests).toEqual(expect.arrayContaining([expect.objectContaining({ method: 'POST', path: '/tasks', kind: 'submit', status: 202 })]));
    expect((await control('behave', { maxConcurrent: 0 })).status).toBe(400);
    expect((await control('reset')).status).toBe(200);
  });
});
