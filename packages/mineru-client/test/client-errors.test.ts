import { describe, expect, it } from '@jest/globals';
import { MinerUClient, MinerUError, parseRetryAfter, type FetchLike } from '@readpack/mineru-client';

/**
 * How each HTTP answer and transport failure is classified. A stub fetch stands in for MinerU
 * here because these are statuses and failures the fake cannot produce on demand (a 2xx with a
 * broken body, a DNS failure); the contract suite covers the same kinds against a server.
 */
function answering(status: number, body: unknown, headers: Record<string, string> = {}): FetchLike {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain' : 'application/json';
  return async () => new Response(status === 204 ? null : text, { status, headers: { 'content-type': type, ...headers } });
}

function failing(code: string): FetchLike {
  return async () => {
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
  };
}

const client = (fetch: FetchLike) => new MinerUClient({ baseUrl: 'http://mineru.test:8000/', requestTimeoutMs: 1_000, fetch });

async function kindOf(promise: Promise<unknown>): Promise<MinerUError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof MinerUError)) throw new Error(`expected a MinerUError, got ${String(err)}`);
  return err;
}

describe('MinerUClient error classification', () => {
  it.each([
    [429, { detail: 'slow down' }, 'rate_limited'],
    [503, { detail: 'Task manager is not initialized' }, 'rate_limited'],
    [500, 'Internal Server Error', 'server_error'],
    [502, '<html>Bad Gateway</html>', 'server_error'],
    [504, '', 'server_error'],
    [408, { detail: 'deadline' }, 'timeout'],
    [400, { detail: 'Unsupported file type: txt' }, 'bad_request'],
    [413, { detail: 'too large' }, 'bad_request'],
    [404, { detail: 'Not Found' }, 'bad_request'],
  ] as const)('POST /tasks answering %i is %s', async (status, body, kind) => {
    const err = await kindOf(client(answering(status, body)).submit({ name: 'a.pdf', data: new Uint8Array([1]) }));
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(status);
  });

  it('carries MinerU\'s detail, including FastAPI\'s 422 error list', async () => {
    const err = await kindOf(
      client(answering(422, { detail: [{ type: 'missing', loc: ['body', 'files'], msg: 'Field required', input: null }] })).submit({ name: 'a.pdf', data: new Uint8Array([1]) }),
    );
    expect(err).toMatchObject({ kind: 'bad_request', message: 'body.files: Field required' });
  });

  it('reads Retry-After as seconds or as an HTTP-date', async () => {
    expect((await kindOf(client(answering(429, {}, { 'retry-after': '30' })).health())).retryAfterMs).toBe(30_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('404 about a task we hold is task_lost', async () => {
    const err = await kindOf(client(answering(404, { detail: 'Task not found' })).result('t-1'));
    expect(err).toMatchObject({ kind: 'task_lost', taskId: 't-1', status: 404 });
  });

  it.each([
    ['ECONNREFUSED', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['ENOTFOUND', 'unreachable'],
    ['UND_ERR_SOCKET', 'unreachable'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
  ] as const)('a transport failure %s is %s', async (code, kind) => {
    const err = await kindOf(client(failing(code)).status('t-1'));
    expect(err.kind).toBe(kind);
    expect(err.message).toContain(code);
  });

  it('a 2xx that breaks the protocol is server_error, never a silent success', async () => {
    expect((await kindOf(client(answering(200, { ok: true })).status('t-1'))).kind).toBe('server_error');
    expect((await kindOf(client(answering(202, 'accepted')).submit({ name: 'a.pdf', data: new Uint8Array([1]) }))).kind).toBe('server_error');
    const garbled = { backend: 'pipeline', version: '3', results: { a: { content_list: '[{"type": "text", ' } } };
    expect((await kindOf(client(answering(200, garbled)).result('t-1'))).message).toMatch(/content_list is not valid JSON/);
    const twoFiles = { backend: 'pipeline', version: '3', results: { a: {}, b: {} } };
    expect((await kindOf(client(answering(200, twoFiles)).result('t-1'))).kind).toBe('server_error');
  });

  it('parses a 200 result, JSON-in-string fields included', async () => {
    const body = {
      backend: 'pipeline',
      version: '3.4.4',
      results: { doc: { md_content: '# T', content_list: '[{"type":"text","text":"T","text_level":1,"page_idx":0,"bbox":[0,0,1,1]}]', middle_json: '{"pdf_info":[]}', images: { 'a.jpg': 'data:image/jpeg;base64,AA==' } } },
    };
    const outcome = await client(answering(200, body)).result('t-1');
    expect(outcome).toEqual({
      state: 'completed',
      result: {
        backend: 'pipeline',
        version: '3.4.4',
        stem: 'doc',
        markdown: '# T',
        contentList: [{ type: 'text', text: 'T', text_level: 1, page_idx: 0, bbox: [0, 0, 1, 1] }],
        middleJson: { pdf_info: [] },
        images: { 'a.jpg': 'data:image/jpeg;base64,AA==' },
      },
    });
  });

  it('a caller\'s abort surfaces as the caller\'s reason, not as a MinerU failure', async () => {
    const controller = new AbortController();
    const hanging: FetchLike = (_input, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    const pending = client(hanging).health({ signal: controller.signal });
    controller.abort(new Error('shutting down'));
    await expect(pending).rejects.toThrow('shutting down');
  });
});
