import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  MinerUClient,
  MinerUError,
  mapMinerUResult,
  runTask,
  type MappedMinerUDocument,
  type MinerUFile,
  type MinerUParseMethod,
  type RunTaskOptions,
} from '@readpack/mineru-client';
import { startFakeMinerU, type FakeMinerU } from '@readpack/mineru-fake';
import { containsSnippet, corpusManifest, fixturePath, waitFor } from '@readpack/testing';

/**
 * The MinerU contract, from the client's side. Against the fake by default; against a real
 * MinerU when MINERU_URL is set (`MINERU_URL=http://gpu-box:8000 npm test -- contract`), in which
 * case the fault-injection cases, which need the fake's controls, are skipped. Assertions in the
 * shared cases hold for any faithful MinerU; exact canned values are checked in fake-only cases.
 */
const REAL_URL = process.env.MINERU_URL;
const fakeOnly = REAL_URL ? it.skip : it;
const limits = REAL_URL
  ? { requestTimeoutMs: 120_000, budgetMs: 30 * 60_000, pollIntervalMs: 2_000, test: 35 * 60_000 }
  : { requestTimeoutMs: 5_000, budgetMs: 10_000, pollIntervalMs: 10, test: 15_000 };

let fake: FakeMinerU | undefined;
let client: MinerUClient;
let baseUrl: string;

beforeAll(async () => {
  if (REAL_URL) baseUrl = REAL_URL;
  else {
    fake = await startFakeMinerU({ processingMs: 30 });
    baseUrl = fake.url;
  }
  client = new MinerUClient({ baseUrl, requestTimeoutMs: limits.requestTimeoutMs });
});

afterEach(() => fake?.reset());
afterAll(async () => fake?.close());

function corpusFile(name: string): MinerUFile {
  return { name, data: new Uint8Array(readFileSync(fixturePath(name))) };
}

function runOptions(file: MinerUFile, overrides: Partial<RunTaskOptions> = {}): RunTaskOptions {
  return {
    file,
    onSubmitted: () => undefined,
    budgetMs: limits.budgetMs,
    pollIntervalMs: limits.pollIntervalMs,
    maxResubmits: 2,
    ...overrides,
  };
}

async function rejectionOf(promise: Promise<unknown>): Promise<MinerUError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof MinerUError)) throw new Error(`expected a MinerUError, got ${String(err)}`);
  return err;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const PAGE_LETTER = { widthPt: 612, heightPt: 792 };

describe('MinerU contract: health', () => {
  it('GET /health answers protocol 2 with queue counters', async () => {
    const health = await client.health();
    expect(health.status).toBe('healthy');
    expect(health.protocol_version).toBe(2);
    expect(health.max_concurrent_requests).toBeGreaterThanOrEqual(1);
    expect(typeof health.queued_tasks).toBe('number');
    expect(typeof health.processing_tasks).toBe('number');
  });
});

describe('MinerU contract: submit, poll, result', () => {
  it(
    'POST /tasks answers 202 with the task; GET /tasks/{id} reaches completed; the result parses',
    async () => {
      const task = await client.submit(corpusFile('REPAIR-2022-INV-001_multipage.pdf'));
      expect(['pending', 'processing']).toContain(task.status);
      expect(task.file_names).toEqual(['REPAIR-2022-INV-001_multipage']);
      expect(task.status_url).toMatch(new RegExp(`/tasks/${task.task_id}$`));
      expect(task.result_url).toMatch(new RegExp(`/tasks/${task.task_id}/result$`));
      expect(task.message).toBe('Task submitted successfully');
      expect(typeof task.queued_ahead).toBe('number');
      expect(typeof task.created_at).toBe('string');

      const done = await waitFor(
        async () => {
          const status = await client.status(task.task_id);
          return status.status === 'completed' || status.status === 'failed' ? status : undefined;
        },
        { timeoutMs: limits.budgetMs, intervalMs: limits.pollIntervalMs, what: 'the task to finish' },
      );
      expect(done.status).toBe('completed');
      expect(done.completed_at).not.toBeNull();

      const outcome = await client.result(task.task_id);
      if (outcome.state !== 'completed') throw new Error(`expected completed, got ${outcome.state}`);
      expect(outcome.result.stem).toBe('REPAIR-2022-INV-001_multipage');
      expect(outcome.result.version).not.toBe('');
      expect(Array.isArray(outcome.result.contentList)).toBe(true);
      expect(outcome.result.markdown).toContain('ZAVA AUTO REPAIR');
    },
    limits.test,
  );

  it(
    'GET /tasks/{id}/result answers 202 (pending or processing) before the task finished',
    async () => {
      fake?.behave({ processingMs: 5_000 });
      const task = await client.submit(corpusFile('pdflatex-image.pdf'));
      const outcome = await client.result(task.task_id);
      expect(['pending', 'processing']).toContain(outcome.state);
      if (outcome.state === 'pending' || outcome.state === 'processing') expect(outcome.task.task_id).toBe(task.task_id);
    },
    limits.test,
  );

  it('an unknown task id is task_lost (404 "Task not found") on status and result', async () => {
    const onStatus = await rejectionOf(client.status('00000000-0000-4000-8000-000000000000'));
    expect(onStatus.kind).toBe('task_lost');
    expect(onStatus.status).toBe(404);
    const onResult = await rejectionOf(client.result('00000000-0000-4000-8000-000000000000'));
    expect(onResult.kind).toBe('task_lost');
    expect(onResult.taskId).toBe('00000000-0000-4000-8000-000000000000');
  });

  it('a file type MinerU does not parse is bad_request (400) with MinerU\'s message', async () => {
    const err = await rejectionOf(client.submit({ name: 'notes.txt', data: new TextEncoder().encode('just some plain text\n') }));
    expect(err.kind).toBe('bad_request');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^Unsupported file type: /);
    expect(err.transient).toBe(false);
  });

  it('an invalid option is bad_request (400) with MinerU\'s message', async () => {
    const err = await rejectionOf(client.submit(corpusFile('pdflatex-image.pdf'), { parseMethod: 'bogus' as MinerUParseMethod }));
    expect(err.kind).toBe('bad_request');
    expect(err.message).toMatch(/^Invalid parse_method/);
  });

  it('a closed port is unreachable', async () => {
    const offline = new MinerUClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, requestTimeoutMs: 2_000 });
    const err = await rejectionOf(offline.health());
    expect(err.kind).toBe('unreachable');
    expect(err.transient).toBe(true);
  });
});

describe('MinerU contract: result mapping', () => {
  let repair: MappedMinerUDocument;
  let latex: MappedMinerUDocument;

  beforeAll(async () => {
    const [a, b] = await Promise.all([
      runTask(client, runOptions(corpusFile('REPAIR-2022-INV-001_multipage.pdf'))),
      runTask(client, runOptions(corpusFile('pdflatex-image.pdf'))),
    ]);
    repair = mapMinerUResult(a.result, { pageSizes: [PAGE_LETTER, PAGE_LETTER, PAGE_LETTER] });
    latex = mapMinerUResult(b.result);
  }, limits.test);

  it('keeps MinerU\'s 0-based page indexes and puts each page\'s text where the corpus says it is', () => {
    expect(repair.pages.map((page) => page.index)).toEqual([0, 1, 2]);
    expect(new Set(repair.blocks.map((block) => block.pageIndex))).toEqual(new Set([0, 1, 2]));
    const entry = corpusManifest().find((file) => file.name === 'REPAIR-2022-INV-001_multipage.pdf');
    for (const snippet of entry?.snippets ?? []) {
      expect(containsSnippet(repair.pages[(snippet.page ?? 1) - 1]?.text ?? '', snippet.text)).toBe(true);
    }
  });

  it('maps text_level to headings with levels', () => {
    const headings = repair.blocks.filter((block) => block.type === 'heading');
    expect(headings.length).toBeGreaterThan(0);
    for (const heading of headings) expect(heading.level).toBeGreaterThanOrEqual(1);
    expect(repair.blocks.some((block) => block.type === 'paragraph')).toBe(true);
  });

  it('keeps tables as HTML and as rows of cells', () => {
    const tables = repair.blocks.filter((block) => block.type === 'table');
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) {
      expect(table.html).toMatch(/<table/i);
      expect(table.cells?.length).toBeGreaterThan(1);
      const width = table.cells?.[0]?.length;
      for (const row of table.cells ?? []) expect(row).toHaveLength(width ?? 0);
    }
    expect(tables.flatMap((table) => table.cells ?? []).some((row) => row.includes('GRAND TOTAL'))).toBe(true);
  });

  it('converts the 0–1000 bbox to PDF points when page sizes are known', () => {
    for (const block of repair.blocks) {
      const expected = [block.bbox[0] * 0.612, block.bbox[1] * 0.792, block.bbox[2] * 0.612, block.bbox[3] * 0.792];
      expect(block.bboxPt).toHaveLength(4);
      expected.forEach((value, i) => expect(block.bboxPt?.[i]).toBeCloseTo(value, 1));
    }
    expect(latex.blocks.every((block) => block.bboxPt === undefined)).toBe(true);
  });

  it('decodes the images and resolves img_path to the images map', () => {
    const pictures = latex.blocks.filter((block) => block.type === 'image');
    expect(pictures.length).toBeGreaterThan(0);
    for (const picture of pictures) {
      const image = latex.images.find((candidate) => candidate.name === picture.image);
      expect(image?.mediaType).toBe('image/jpeg');
      expect([...(image?.data.subarray(0, 3) ?? [])]).toEqual([0xff, 0xd8, 0xff]);
    }
    expect(latex.warnings).toEqual([]);
    expect(latex.markdown).toContain(`images/${pictures[0]?.image}`);
  });

  fakeOnly('matches the canned result exactly: heading levels, merged cells, page furniture', () => {
    const page0 = repair.blocks.filter((block) => block.pageIndex === 0);
    expect(page0.filter((block) => block.type === 'heading').map((block) => [block.text, block.level])).toEqual([
      ['ZAVA AUTO REPAIR', 1],
      ['Preliminary Estimate (ID: EST-1008)', 2],
    ]);
    const [info, totals] = page0.filter((block) => block.type === 'table');
    expect(info?.cells?.[0]).toEqual(['Customer Information', '', 'Vehicle Information', '']);
    expect(info?.cells?.[6]).toEqual(['', '', 'Color', 'White']);
    expect(info?.cells?.[7]).toEqual(['', '', 'Odometer', '9,800']);
    expect(totals?.captions).toEqual(['Estimate Totals']);
    expect(totals?.cells?.slice(5, 8)).toEqual([
      ['Supplies', '', '', ''],
      ['', 'Paint Supplies', '', '60'],
      ['', 'Body Supplies', '', '30'],
    ]);
    expect(totals?.image && repair.images.some((image) => image.name === totals.image)).toBe(true);
    const pageNumber = latex.blocks.find((block) => block.type === 'page_number');
    expect(pageNumber?.text).toBe('1');
    expect(latex.pages[0]?.text.split('\n')).not.toContain('1');
  });
});

describe('MinerU contract: failures (fake only)', () => {
  fakeOnly('a task that fails answers status failed and result 409 with MinerU\'s error', async () => {
    fake?.behave({ failTasks: { count: 1, error: 'CUDA out of memory' } });
    const task = await client.submit(corpusFile('pdflatex-image.pdf'));
    await waitFor(async () => ((await client.status(task.task_id)).status === 'failed' ? true : undefined), { what: 'the task to fail' });
    const outcome = await client.result(task.task_id);
    expect(outcome).toMatchObject({ state: 'failed', error: 'CUDA out of memory' });
  });

  fakeOnly('runTask turns a failed task into task_failed (permanent)', async () => {
    fake?.behave({ failTasks: { count: 1, error: 'CUDA out of memory' } });
    const err = await rejectionOf(runTask(client, runOptions(corpusFile('pdflatex-image.pdf'))));
    expect(err.kind).toBe('task_failed');
    expect(err.message).toBe('CUDA out of memory');
    expect(err.transient).toBe(false);
  });

  fakeOnly('a restarted MinerU forgets its tasks: task_lost', async () => {
    const task = await client.submit(corpusFile('pdflatex-image.pdf'));
    fake?.restart();
    expect((await rejectionOf(client.status(task.task_id))).kind).toBe('task_lost');
  });

  fakeOnly('429 with Retry-After is rate_limited with retryAfterMs', async () => {
    fake?.behave({ fail: { status: 429, target: 'submit', retryAfter: 7 } });
    const err = await rejectionOf(client.submit(corpusFile('pdflatex-image.pdf')));
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7_000 });
  });

  fakeOnly('503 is rate_limited too, with Retry-After as an HTTP-date', async () => {
    const task = await client.submit(corpusFile('pdflatex-image.pdf'));
    fake?.behave({ fail: { status: 503, target: 'poll', retryAfter: new Date(Date.now() + 60_000).toUTCString() } });
    const err = await rejectionOf(client.status(task.task_id));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterMs).toBeGreaterThan(50_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  fakeOnly('other 5xx are server_error', async () => {
    fake?.behave({ fail: [{ status: 500, target: 'health' }, { status: 502, target: 'health' }] });
    expect(await rejectionOf(client.health())).toMatchObject({ kind: 'server_error', status: 500 });
    expect(await rejectionOf(client.health())).toMatchObject({ kind: 'server_error', status: 502 });
    expect((await client.health()).status).toBe('healthy');
  });

  fakeOnly('a MinerU that never answers is a timeout', async () => {
    fake?.behave({ hang: { target: 'health' } });
    const impatient = new MinerUClient({ baseUrl, requestTimeoutMs: 200 });
    const err = await rejectionOf(impatient.health());
    expect(err.kind).toBe('timeout');
    expect(err.budgetExhausted).toBe(false);
  });
});

describe('MinerU contract: runTask', () => {
  it(
    'submits once, hands over the task id before the first poll, and returns the result',
    async () => {
      const events: string[] = [];
      const recording = new MinerUClient({
        baseUrl,
        requestTimeoutMs: limits.requestTimeoutMs,
        fetch: (input, init) => {
          events.push(`${init.method} ${new URL(input).pathname}`);
          return fetch(input, init);
        },
      });
      const outcome = await runTask(recording, runOptions(corpusFile('pdflatex-image.pdf'), { onSubmitted: (id) => void events.push(`persist ${id}`) }));
      expect(outcome.submissions).toBe(1);
      expect(events.slice(0, 3)).toEqual(['POST /tasks', `persist ${outcome.taskId}`, `GET /tasks/${outcome.taskId}`]);
      expect(events.at(-1)).toBe(`GET /tasks/${outcome.taskId}/result`);
      expect(outcome.result.contentList?.length).toBeGreaterThan(0);
    },
    limits.test,
  );

  it(
    'with existingTaskId resumes polling that task and submits nothing',
    async () => {
      const task = await client.submit(corpusFile('pdflatex-image.pdf'));
      const before = fake?.stats.submissions;
      const persisted: string[] = [];
      const outcome = await runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { existingTaskId: task.task_id, onSubmitted: (id) => void persisted.push(id) }));
      expect(outcome.taskId).toBe(task.task_id);
      expect(outcome.submissions).toBe(0);
      expect(persisted).toEqual([]);
      if (fake) expect(fake.stats.submissions).toBe(before);
    },
    limits.test,
  );

  fakeOnly('resubmits a task MinerU lost in a restart, and persists the new id', async () => {
    fake?.behave({ processingMs: 200 });
    const before = fake?.stats.submissions ?? 0;
    const persisted: string[] = [];
    const outcome = await runTask(
      client,
      runOptions(corpusFile('pdflatex-image.pdf'), {
        onSubmitted: (id) => {
          persisted.push(id);
          if (persisted.length === 1) fake?.restart();
        },
      }),
    );
    expect(persisted).toHaveLength(2);
    expect(persisted[0]).not.toBe(persisted[1]);
    expect(outcome.taskId).toBe(persisted[1]);
    expect(outcome.submissions).toBe(2);
    expect(fake?.stats.submissions).toBe(before + 2);
  });

  fakeOnly('gives up with task_lost after maxResubmits', async () => {
    const before = fake?.stats.submissions ?? 0;
    const err = await rejectionOf(runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { maxResubmits: 2, onSubmitted: () => fake?.restart() })));
    expect(err.kind).toBe('task_lost');
    expect(err.message).toMatch(/gave up after 2 resubmission/);
    expect(fake?.stats.submissions).toBe(before + 3);
  });

  fakeOnly('a spent budget is a timeout with budgetExhausted', async () => {
    fake?.behave({ processingMs: 10_000 });
    const err = await rejectionOf(runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { budgetMs: 300 })));
    expect(err.kind).toBe('timeout');
    expect(err.budgetExhausted).toBe(true);
    expect(err.transient).toBe(false);
    expect(err.message).toMatch(/did not complete within the 300 ms budget/);
  });

  fakeOnly('stops when the caller aborts, with the caller\'s reason', async () => {
    fake?.behave({ processingMs: 10_000 });
    const controller = new AbortController();
    const run = runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { signal: controller.signal, onSubmitted: () => controller.abort(new Error('consumer shutting down')) }));
    await expect(run).rejects.toThrow('consumer shutting down');
  });

  fakeOnly('throws a transient error at once; the retry resumes the persisted task without a second upload', async () => {
    let persisted: string | undefined;
    fake?.behave({ fail: { status: 503, target: 'status', retryAfter: 1 } });
    const first = await rejectionOf(runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { onSubmitted: (id) => void (persisted = id) })));
    expect(first.kind).toBe('rate_limited');
    const before = fake?.stats.submissions;
    const retry = await runTask(client, runOptions(corpusFile('pdflatex-image.pdf'), { existingTaskId: persisted }));
    expect(retry.taskId).toBe(persisted);
    expect(fake?.stats.submissions).toBe(before);
  });
});
