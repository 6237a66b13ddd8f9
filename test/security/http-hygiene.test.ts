import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startPipeline, type Pipeline } from '../harness.js';
import { contentDisposition } from '../../apps/api/src/http/content-disposition.js';
import { displayName } from '../../apps/api/src/uploads/filenames.js';
import { errorCode, TenantClient } from './support/client.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

const KEY = 'hygiene-key-0123456789abcdef';
const ORIGIN = 'https://app.example.com';

/** A request with a body on any method, sent chunked (no Content-Length to refuse up front). */
function chunked(url: string, method: string, bytes: number, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'transfer-encoding': 'chunked', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may answer and close before the whole body is sent: that is the point.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const chunk = Buffer.alloc(8 * 1024, 'x');
    for (let sent = 0; sent < bytes; sent += chunk.length) req.write(chunk);
    req.end();
  });
}

describe('HTTP hygiene', () => {
  let pipeline: Pipeline;
  let client: TenantClient;
  beforeAll(async () => {
    pipeline = await startPipeline({ API_KEYS: `${KEY}:hygiene`, CORS_ORIGINS: `${ORIGIN}, https://other.example.com` }, { consumers: false });
    client = new TenantClient(pipeline.api.url, KEY);
  });
  afterAll(async () => pipeline?.stop());

  it("sends helmet's headers with a CSP that allows nothing, and no X-Powered-By", async () => {
    for (const res of [await client.get('/healthz'), await client.get('/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA'), await client.get('/nowhere')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none';sandbox");
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('allows exactly the configured origins, never a wildcard or credentials', async () => {
    const preflight = (origin: string) =>
      fetch(`${pipeline.api.url}/api/files`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    const allowed = await preflight(ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const refused = await preflight('https://evil.example.net');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await client.get('/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA', { origin: 'https://evil.example.net' });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    // The status route has a lane of its own (app.ts): it must carry the same policy.
    const allowedPoll = await client.get('/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA', { origin: ORIGIN });
    expect(allowedPoll.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowedPoll.headers.get('access-control-expose-headers')).toMatch(/X-Served-By/);
  });

  it('sends no CORS headers at all when no origins are configured', async () => {
    const closed = await startPipeline({ API_KEYS: `${KEY}:hygiene` }, { consumers: false });
    try {
      const res = await fetch(`${closed.api.url}/api/files`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await closed.stop();
    }
  });

  it('limits the body of every route that is not an upload, chunked or not', async () => {
    const status = `${pipeline.api.url}/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA`;
    for (const [method, url] of [
      ['GET', status],
      ['POST', status],
      ['PUT', `${pipeline.api.url}/api/anything`],
      ['POST', `${pipeline.api.url}/healthz`],
    ] as const) {
      const res = await chunked(url, method, 1024 * 1024, { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
      expect({ method, url, status: res.status }).toEqual({ method, url, status: 413 });
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'body_too_large', limitBytes: 16 * 1024 } });
    }
    // A small body is read and ignored.
    expect((await chunked(status, 'GET', 8 * 1024, { authorization: `Bearer ${KEY}` })).status).toBe(404);
  });

  it('an upload route takes only multipart bodies of any size; anything else there has the small limit', async () => {
    const json = await chunked(`${pipeline.api.url}/api/files`, 'POST', 1024 * 1024, { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
    expect(json.status).toBe(413);
    const small = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' });
    expect(small.status).toBe(400);
    expect(await errorCode(small)).toBe('missing_file');
  });

  it('closes the connection when it refuses a request before reading its body', async () => {
    const res = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(`${pipeline.api.url}/api/files`, { method: 'POST', headers: { 'transfer-encoding': 'chunked', 'content-type': 'multipart/form-data; boundary=x' } }, (r) => {
        r.resume();
        resolve({ status: r.statusCode ?? 0, connection: r.headers.connection });
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      req.write(Buffer.alloc(64 * 1024)); // no key, and the body never ends
    });
    expect(res).toEqual({ status: 401, connection: 'close' });
  });

  it('a refused small body is drained, not cut off: the client writing it late still reads the answer, and the connection lives on', async () => {
    const url = new URL(pipeline.api.url);
    const body = '--x\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--x--\r\n';
    const exchange = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let received = '';
      let bodySent = false;
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (!bodySent && received.includes('\r\n\r\n') && received.includes('}')) {
          // Like undici under load: the body goes out only after the server has answered.
          bodySent = true;
          socket.write(body);
          setTimeout(() => socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`), 50);
        }
      });
      socket.on('end', () => resolve(received));
      socket.write(`POST /api/files HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: multipart/form-data; boundary=x\r\ncontent-length: ${body.length}\r\n\r\n`);
    });
    const statuses = [...exchange.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([401, 200]);
    const firstAnswerHead = exchange.slice(0, exchange.indexOf('\r\n\r\n'));
    expect(firstAnswerHead).not.toMatch(/^connection: close/im);
  });

  it('never shows a stack trace or an internal path in an error body', async () => {
    const bodies = [
      await (await client.get('/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA')).text(),
      await (await new TenantClient(pipeline.api.url).get('/api/files/job/x')).text(),
      await (await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' })).text(),
      (await chunked(`${pipeline.api.url}/api/x`, 'POST', 64 * 1024, { authorization: `Bearer ${KEY}` })).body,
    ];
    for (const body of bodies) {
      const parsed = JSON.parse(body) as { error: Record<string, unknown> };
      expect(Object.keys(parsed)).toEqual(['error']);
      expect(body).not.toMatch(/\bat .+\(|node_modules|\/work\/|\/src\/|\.ts:\d|\.js:\d/);
    }
  });

  it('answers a multipart body cut off mid-part with 400, not 500', async () => {
    const res = await fetch(`${pipeline.api.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello',
    });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_upload');
  });
});

describe('names in headers and on screen', () => {
  it('Content-Disposition carries any name safely: ASCII fallback plus RFC 5987 filename*', () => {
    const header = contentDisposition('attachment', 'evil"\r\nSet-Cookie: a=b; x=%41 Ünïcödé 文件.png');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toMatch(/^attachment; filename="[^"\\]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
    const [, star] = /filename\*=UTF-8''(.+)$/.exec(header)!;
    expect(decodeURIComponent(star!)).toBe('evil"\r\nSet-Cookie: a=b; x=%41 Ünïcödé 文件.png');
    expect(/filename="([^"]*)"/.exec(header)![1]).toMatch(/^[\x20-\x7e]*$/);
  });

  it('display names lose paths, controls, direction overrides and zero-width characters, and stay bounded', () => {
    const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1'); // how multer hands names over
    expect(displayName(latin1('../../etc/passwd'))).toBe('passwd');
    expect(displayName(latin1('C:\\Users\\x\\report.pdf'))).toBe('report.pdf');
    expect(displayName(latin1('invoice\u202Efdp.exe'))).toBe('invoicefdp.exe');
    expect(displayName(latin1('a\u0000b\u001fc\u007fd\u200be'))).toBe('abcde');
    expect(displayName(latin1('/'))).toBe('upload');
    expect([...displayName(latin1('文'.repeat(10_000)))]).toHaveLength(255);
    expect(displayName('caf\xe9.txt')).toBe('café.txt'); // a client that really sent latin1
  });
});
