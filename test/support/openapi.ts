import { afterAll, beforeAll, expect } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../apps/api/src/contract/openapi.js';

/*
 * Checks real answers against the served OpenAPI document: the route (method + path template)
 * must be in it, the status must be one it lists, and a JSON body must validate against the
 * listed schema (ajv, draft 2020-12 — OpenAPI 3.1's dialect). `checkResponsesAgainstOpenApi()`
 * wraps fetch for one test file, so every request the tests already make is checked where it is.
 */

type Json = Record<string, unknown>;
const DOC_ID = 'readpack-openapi.json';

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Json;
}

let compiled: { ajv: Ajv2020; routes: Route[]; validators: Map<string, ValidateFunction> } | undefined;

function setup() {
  if (compiled) return compiled;
  const { document } = openApiDocument();
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, DOC_ID);
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(item)) routes.push({ method: method.toUpperCase(), template, pattern, operation: operation as Json });
  }
  compiled = { ajv, routes, validators: new Map() };
  return compiled;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Paths the document does not describe by design: Bull Board and the web app. */
function outsideTheApi(path: string): boolean {
  return !(path.startsWith('/api/') || ['/healthz', '/readyz', '/metrics'].includes(path));
}

let checked = 0;
/** How many responses were checked so far in this test file. */
export function checkedResponses(): number {
  return checked;
}

/** Throws naming the route, status and every violation when `res` does not match the document. */
export async function assertMatchesOpenApi(method: string, url: string, res: Response): Promise<void> {
  const { ajv, routes, validators } = setup();
  const path = new URL(url).pathname;
  if (outsideTheApi(path)) return;
  // CORS preflights are answered by the CORS layer, not by an operation of the API.
  if (method === 'OPTIONS') return;
  const asGet = method === 'HEAD' ? 'GET' : method;
  const route = routes.find((r) => r.method === asGet && r.pattern.test(path));
  const where = `${method} ${path} → ${res.status}`;
  if (!route) {
    // Not a route: only a documented error may come back (route_not_found, auth, bad path…).
    if (res.status < 400) throw new Error(`${where}: a success for a path the OpenAPI document does not have`);
    await validateBody(ajv, validators, `${DOC_ID}#/components/schemas/Error`, where, res);
    checked++;
    return;
  }
  const responses = route.operation.responses as Record<string, Json>;
  const spec = responses[String(res.status)];
  if (!spec) throw new Error(`${where}: status ${res.status} is not documented for ${route.method} ${route.template} (documented: ${Object.keys(responses).join(', ')})`);
  const content = spec.content as Record<string, Json> | undefined;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (content && method !== 'HEAD') {
    const mediaType = content[type] ? type : content['*/*'] ? '*/*' : undefined;
    if (!mediaType) throw new Error(`${where}: content-type ${type || '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`);
    if (mediaType === 'application/json') {
      const ref = `${DOC_ID}#${pointer('', 'paths', route.template, route.method.toLowerCase(), 'responses', String(res.status), 'content', mediaType, 'schema')}`;
      await validateBody(ajv, validators, ref, where, res);
    }
  }
  checked++;
}

async function validateBody(ajv: Ajv2020, validators: Map<string, ValidateFunction>, ref: string, where: string, res: Response): Promise<void> {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 10).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(`${where}: the body does not match the OpenAPI document:\n${errors.join('\n')}\n${text.slice(0, 500)}`);
  }
}

/**
 * For the test file it is called in: every answer fetched from the API is checked against the
 * document before the test sees it, and at the end at least one must have been.
 */
export function checkResponsesAgainstOpenApi(): void {
  const original = globalThis.fetch;
  beforeAll(() => {
    checked = 0;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await original(input, init);
      const url = input instanceof Request ? input.url : String(input);
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      await assertMatchesOpenApi(method, url, res);
      return res;
    };
  });
  afterAll(() => {
    globalThis.fetch = original;
    expect(checked).toBeGreaterThan(0);
  });
}
