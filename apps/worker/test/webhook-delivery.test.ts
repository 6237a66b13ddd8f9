import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhookTarget, guardedLookup, WebhookAllowList, WebhookTargetError } from '@readpack/queues';
import { deliver, DeliveryFailed, signature } from '../src/webhooks/delivery.js';

/*
 * One delivery attempt against a local receiver (allowed by CIDR, as a deployment allows an
 * internal host): redirects, their bound and their SSRF re-check, the timeout, the signature.
 */
let server: Server;
let base: string;
const hits: string[] = [];
const ALLOW = new WebhookAllowList(['127.0.0.1/32']);

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    req.resume();
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) return void res.writeHead(307, { location: Number(hop[1]) > 0 ? `/hop/${Number(hop[1]) - 1}` : '/ok' }).end();
    if (path === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    if (path === '/slow') return; // never answers
    res.writeHead(path === '/ok' ? 200 : 500).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const delivery = (path: string) => ({ url: `${base}${path}`, body: '{"id":"x"}', deliveryId: 'x', secret: 'a-secret-of-16-chars' });

describe('a webhook delivery attempt', () => {
  it('follows up to three redirects, each with the same POST', async () => {
    hits.length = 0;
    await expect(deliver(delivery('/hop/2'), ALLOW, 5_000)).resolves.toBe(200);
    expect(hits).toEqual(['/hop/2', '/hop/1', '/hop/0', '/ok']);
    await expect(deliver(delivery('/hop/3'), ALLOW, 5_000)).rejects.toThrow('more than 3 redirects');
  });

  it('checks every redirect target like the first: no hop to a link-local address', async () => {
    await expect(deliver(delivery('/to-metadata'), ALLOW, 5_000)).rejects.toBeInstanceOf(WebhookTargetError);
  });

  it('fails on a non-2xx answer and on a receiver that does not answer in time', async () => {
    await expect(deliver(delivery('/error'), ALLOW, 5_000)).rejects.toMatchObject({ name: 'DeliveryFailed', status: 500 });
    const started = Date.now();
    await expect(deliver(delivery('/slow'), ALLOW, 300)).rejects.toBeInstanceOf(DeliveryFailed);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('signs t.body with HMAC-SHA256', () => {
    const mac = createHmac('sha256', 'k'.repeat(16)).update('1700000000.{"a":1}').digest('hex');
    expect(signature('k'.repeat(16), '{"a":1}', 1_700_000_000)).toBe(`t=1700000000,v1=${mac}`);
  });
});

describe('webhook targets (SSRF)', () => {
  it('refuses loopback, private, link-local, unique-local and CGNAT addresses unless allowed', async () => {
    const none = new WebhookAllowList([]);
    for (const url of ['http://127.0.0.1/', 'http://localhost/', 'http://10.1.2.3/', 'http://172.20.0.1/', 'http://192.168.0.10/', 'http://169.254.169.254/', 'http://100.100.0.1/', 'http://[fd00::1]/', 'http://[fe80::1]/', 'http://[::ffff:10.0.0.1]/', 'http://0.0.0.0/']) {
      await expect(checkWebhookTarget(url, none)).rejects.toBeInstanceOf(WebhookTargetError);
    }
    await expect(checkWebhookTarget('http://93.184.215.14/hook', none)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookTarget('https://user:pw@93.184.215.14/', none)).rejects.toThrow('credentials');
    await expect(checkWebhookTarget('http://10.1.2.3/', new WebhookAllowList(['10.0.0.0/8']))).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookTarget('http://localhost/', new WebhookAllowList(['localhost']))).resolves.toBeInstanceOf(URL);
  });

  it('refuses at connection time too, whatever the name resolved to at upload (DNS rebinding)', async () => {
    const lookup = guardedLookup(new WebhookAllowList([]));
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', { all: true }, (e) => resolve(e)));
    expect(error).toBeInstanceOf(WebhookTargetError);
  });
});
