import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { ConfigError } from '@readpack/config';
import { OcrError, resolveLanguageData } from '@readpack/ocr';
import { ocrFailure } from '../../apps/worker/src/stages/ocr.js';
import { openStorage, SCHEMA_VERSION, type PackageManifest } from '@readpack/package-store';
import { connectTestRedis, deleteKeysWithPrefix } from '@readpack/testing';
import { startApi, type RunningApi } from '../../apps/api/src/server.js';
import { testConfig } from '../harness.js';
import { capturedLogger, type LogRecord } from '../support/captured-logger.js';
import { errorCode, TenantClient } from './support/client.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

/** node:http, because fetch will not send a Host of our choosing. */
function requestWithHost(base: string, path: string, host: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: init.method ?? 'GET', headers: { ...init.headers, host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The findings of a hostile probe against two tenants (review section 7), one test each: what an
 * attacker tried, and what the service must answer and log instead.
 */
const ALICE = 'probe-alice-key-0123456789abcdef';
const BOB = 'probe-bob-key-0123456789abcdef01';
const IDLE_MS = 1_000;

async function readyOnce(base: string): Promise<boolean> {
  return (await fetch(`${base}/readyz`)).status === 200;
}

/**
 * Opens a raw connection and sends the head of a single-file upload declaring `declared` bytes of
 * body, then `sent` bytes of it; resolves with the socket once they are written.
 */
async function partialUpload(base: string, key: string, declared: number, sent: number): Promise<Socket> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const head = '--x\r\ncontent-disposition: form-data; name="file"; filename="half.txt"\r\ncontent-type: text/plain\r\n\r\n';
  socket.write(
    `POST /api/files HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${declared}\r\n\r\n${head}`,
  );
  await new Promise<void>((resolve) => socket.write(Buffer.alloc(sent - head.length, 'a'), () => resolve()));
  return socket;
}

describe('hostile probe, two tenants', () => {
  let api: RunningApi;
  let records: LogRecord[];
  let cleanUp: () => Promise<void>;
  let alice: TenantClient;
  let anonymous: TenantClient;
  let bob: TenantClient;
  let dataDir: string;

  beforeAll(async () => {
    const config = await testConfig({ API_KEYS: `${ALICE}:alice,${BOB}:bob`, UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS) });
    const captured = capturedLogger();
    records = captured.records;
    api = await startApi(config, captured.logger);
    alice = new TenantClient(api.url, ALICE);
    bob = new TenantClient(api.url, BOB);
    await waitFor(() => readyOnce(api.url), 'the API to be ready');
    dataDir = config.dataDir;
    anonymous = new TenantClient(api.url);
    cleanUp = async () => {
      await api.close();
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, config.redis.prefix);
      await redis.quit();
      await rm(config.dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => cleanUp?.());

  const errorsLogged = () => records.filter((r) => r.level === 'error');

  it('a broken percent-escape in an id: 401 without a key, 400 bad_request with one, never a 500 or a logged error', async () => {
    const ids = ['%zz', '%', '%ff%fe', 'job_%E0%A4%A'];
    const paths = ids.flatMap((id) => [`/api/files/job/${id}`, `/api/files/job/${id}/package`, `/api/files/job/${id}/markdown`, `/api/files/batch/${id}`, `/api/assets/${id}`]);
    for (const path of paths) {
      const refused = await anonymous.get(path);
      expect({ path, status: refused.status, code: await errorCode(refused) }).toEqual({ path, status: 401, code: 'auth_required' });
      expect(refused.headers.get('x-served-by')).toBeTruthy();
      const bad = await alice.get(path);
      expect({ path, status: bad.status, code: await errorCode(bad) }).toEqual({ path, status: 400, code: 'bad_request' });
      expect(bad.headers.get('x-served-by')).toBeTruthy();
      expect(bad.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    expect(errorsLogged()).toEqual([]);
    expect(records.filter((r) => r.message === 'refused a path with a malformed percent-escape').every((r) => r.level === 'info')).toBe(true);
  });

  it('a client that drops its upload half-way is logged as its own doing (info), not as our error with a stack', async () => {
    const before = records.length;
    const socket = await partialUpload(api.url, ALICE, 4 * 1024 * 1024, 256 * 1024);
    socket.destroy();
    await waitFor(() => records.slice(before).some((r) => r.message === 'client went away before its request was read'), 'the abort to be logged');
    const logged = records.slice(before);
    expect(logged.filter((r) => r.level === 'error' || r.level === 'warn')).toEqual([]);
    expect(JSON.stringify(logged)).not.toMatch(/\bat .+\(|stack/);
    expect((await alice.get('/healthz')).status).toBe(200);
  });

  it('an upload body shorter than its Content-Length is cut off after UPLOAD_IDLE_TIMEOUT_MS without progress, not 15 minutes', async () => {
    const before = records.length;
    const startedAt = Date.now();
    const socket = await partialUpload(api.url, BOB, 1024 * 1024, 64 * 1024);
    // Idle from here on: the server, not the client, must end it.
    await new Promise<void>((resolve) => socket.once('close', () => resolve()).resume());
    const heldMs = Date.now() - startedAt;
    expect(heldMs).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(heldMs).toBeLessThan(IDLE_MS + 4_000);
    await waitFor(() => records.slice(before).some((r) => r.message === 'upload body stalled; closing the connection'), 'the stall to be logged');
    expect(records.slice(before).filter((r) => r.level === 'error')).toEqual([]);
  });

  it("another tenant's asset is refused from the package's small index, as fast as a missing one, without reading the manifest", async () => {
    const storage = await openStorage(dataDir);
    const png = await storage.blobs.putBuffer(Buffer.from('\x89PNG\r\n\x1a\n probe asset'));
    const packageId = 'job_PROBEprobePROBEprobe01';
    const text = 'x'.repeat(16 * 1024 * 1024); // a long document: what the old check parsed to refuse
    const manifest: PackageManifest = {
      schemaVersion: SCHEMA_VERSION,
      packageId,
      jobId: packageId,
      tenant: 'bob',
      source: { filename: 'big.txt', mediaType: 'text/plain', size: text.length, sha256: '0'.repeat(64) },
      origin: { parser: 'readpack-text', version: '1', engine: 'native' },
      text,
      markdown: text,
      body: [],
      furniture: [],
      tables: [],
      assets: [{ sha256: png.sha256, mediaType: 'image/png', size: png.size, role: 'embedded-image' }],
    };
    await storage.packages.write(manifest);
    const foreign = `/api/assets/${packageId}.${png.sha256}`;
    const missing = `/api/assets/job_PROBEmissingPROBEmiss.${png.sha256}`;

    expect((await bob.get(foreign)).status).toBe(200);
    const refusedForeign = await alice.get(foreign);
    const refusedMissing = await alice.get(missing);
    expect(refusedForeign.status).toBe(404);
    expect(await refusedForeign.text()).toBe(await refusedMissing.text());

    const timings = { foreign: [] as number[], missing: [] as number[] };
    for (let i = 0; i < 15; i += 1) {
      for (const [kind, path] of [['foreign', foreign], ['missing', missing]] as const) {
        const started = performance.now();
        await (await alice.get(path)).arrayBuffer();
        timings[kind].push(performance.now() - started);
      }
    }
    // Parsing the 32 MB manifest took tens of milliseconds; the index takes what a miss takes.
    expect(median(timings.foreign)).toBeLessThan(median(timings.missing) * 3 + 2);

    // Proof that the manifest is not read at all: a ruined manifest changes nothing for assets.
    await writeFile(storage.packages.pathOf(packageId), 'not a manifest');
    expect((await bob.get(foreign)).status).toBe(200);
    expect((await alice.get(foreign)).status).toBe(404);
    expect(errorsLogged()).toEqual([]);
  });

  it('in production, URLs never come from an arbitrary Host: PUBLIC_BASE_URL or TRUSTED_HOSTS is required, and another host answers 400', async () => {
    const unset = await testConfig({ API_KEYS: `${ALICE}:alice`, READPACK_ENV: 'production' });
    const refusal = await startApi(unset, capturedLogger().logger).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    await rm(unset.dataDir, { recursive: true, force: true });
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).message).toMatch(/PUBLIC_BASE_URL: required in production/);

    const config = await testConfig({ API_KEYS: `${ALICE}:alice`, READPACK_ENV: 'production', TRUSTED_HOSTS: 'API.example.com, api.example.com:8443', REDIS_COMMAND_TIMEOUT_MS: '10000' });
    const production = await startApi(config, capturedLogger().logger);
    try {
      // The API's Redis connection fails fast and is not ready the instant the server listens.
      await waitFor(() => readyOnce(production.url), 'the API to be ready');
      const auth = { authorization: `Bearer ${ALICE}` };
      const body = '--x\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nhello host\r\n--x--\r\n';
      const upload = (host: string) => requestWithHost(production.url, '/api/files', host, { method: 'POST', headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' }, body });
      const trusted = await upload('api.example.com:8443');
      expect(trusted.status).toBe(202);
      expect((JSON.parse(trusted.body) as { statusUrl: string }).statusUrl).toMatch(/^http:\/\/api\.example\.com:8443\/api\/files\/job\/job_/);
      for (const host of ['evil.example.net', 'api.example.com.evil.net', 'api.example.com:9999']) {
        const forged = await upload(host);
        expect({ host, status: forged.status, code: (JSON.parse(forged.body) as { error: { code: string } }).error.code }).toEqual({ host, status: 400, code: 'untrusted_host' });
        const poll = await requestWithHost(production.url, '/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA', host, { headers: auth });
        expect(poll.status).toBe(400);
      }
      // Liveness probes name whatever host the orchestrator uses; they build no URL.
      expect((await requestWithHost(production.url, '/healthz', 'localhost:3000')).status).toBe(200);
    } finally {
      await production.close();
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, config.redis.prefix);
      await redis.quit();
      await rm(config.dataDir, { recursive: true, force: true });
    }
  });
});

describe('hostile probe: what a tenant reads', () => {
  it('an OCR failure tells the tenant what to do and names no server path; the path goes to the log', () => {
    const tessdata = '/usr/share/tesseract-ocr/5/tessdata-probe';
    let engineError: unknown;
    try {
      resolveLanguageData(['zzz'], tessdata);
    } catch (error) {
      engineError = error;
    }
    expect(engineError).toBeInstanceOf(OcrError);
    expect((engineError as OcrError).message).toContain(tessdata); // what the operator needs
    const { logger, records } = capturedLogger();
    const failure = ocrFailure(engineError as OcrError, 'zzz', logger)!;
    expect(failure.code).toBe('ocr_language_data_missing');
    expect(failure.message).toMatch(/ocrLang/);
    expect(failure.message).not.toMatch(/\/(usr|share|tessdata)|traineddata/);
    expect(records.map((r) => [r.level, r.detail])).toEqual([['warn', expect.stringContaining(tessdata)]]);
  });
});
