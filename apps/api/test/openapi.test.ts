import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openApiDocument } from '../src/contract/openapi.js';
import { HTTP_ERROR_CODES } from '../src/contract/error-codes.js';
import { renderMarkdownReference } from '../src/contract/reference.js';
import { startPipeline, type Pipeline } from '../../../test/harness.js';
import { checkResponsesAgainstOpenApi } from '../../../test/support/openapi.js';

const root = new URL('../../../', import.meta.url);

describe('OpenAPI document', () => {
  checkResponsesAgainstOpenApi();
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({}, { consumers: false });
  });
  afterAll(async () => {
    await pipeline.stop();
  });

  it('is served at /api/openapi.json without a key, with the reading package under components', async () => {
    const res = await fetch(`${pipeline.api.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['JobView', 'BatchView', 'Error', 'UploadAccepted', 'ReadingPackage']));
    // Every reference points inside the document.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) expect(ref).toMatch(/"#\/components\/schemas\//);
  });

  it('renders a reference page with every route', async () => {
    const res = await fetch(`${pipeline.api.url}/api/docs`);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const path of Object.keys(openApiDocument().document.paths as object)) expect(html).toContain(path);
  });

  it('documents the error answers tests meet', async () => {
    expect((await fetch(`${pipeline.api.url}/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    expect((await fetch(`${pipeline.api.url}/api/nothing-here`)).status).toBe(404);
    expect((await fetch(`${pipeline.api.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${pipeline.api.url}/readyz`)).status).toBe(200);
  });

  it('keeps docs/api.md in step with the contract (npm run docs:api regenerates it)', () => {
    expect(readFileSync(new URL('docs/api.md', root), 'utf8')).toBe(renderMarkdownReference());
  });

  it('lists exactly the HTTP error codes of docs/errors.md', () => {
    const table = readFileSync(new URL('docs/errors.md', root), 'utf8').split('## Failed jobs')[0]!;
    const documented = new Set([...table.matchAll(/^\| \d{3} \| ([^|]+)\|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((c) => c[1]!)));
    expect([...documented].sort()).toEqual([...HTTP_ERROR_CODES].sort());
  });
});
