import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { OPERATIONS, type Body, type Operation, type ResponseSpec } from './operations.js';

/*
 * The OpenAPI 3.1 document, built from the contract's zod schemas with zod 4's own
 * `z.toJSONSchema` (draft 2020-12, which is OpenAPI 3.1's schema dialect): no generator library
 * between the schemas the routes use and the document, and nothing to keep in step with zod.
 */

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const COMPONENTS = '#/components/schemas/';
const PACKAGE = 'ReadingPackage';

/** The published JSON Schema file, under components with its `#/$defs/…` references re-rooted. */
function readingPackageSchema(): Json {
  const text = readFileSync(require.resolve('@readpack/reading-package/schema.json'), 'utf8');
  const { $schema: _dialect, $id: _id, ...schema } = JSON.parse(text.replaceAll('"#/$defs/', `"${COMPONENTS}${PACKAGE}/$defs/`)) as Json;
  return schema;
}

const strip = ({ $schema: _dialect, $id: _id, ...rest }: Json): Json => rest;

/**
 * Named schemas (`.meta({id})`) become components, converted in one pass so they reference each
 * other; only they go in the registry, or an unnamed schema used inside one (an id) would be
 * pulled out as a component of its own. The rest (path parameters) are converted inline.
 */
function convert(): { components: Record<string, Json>; inline: (schema: z.ZodType) => Json } {
  const registry = z.registry<{ id: string }>();
  const add = (schema: z.ZodType) => {
    const named = z.globalRegistry.get(schema)?.id;
    if (named && !registry.has(schema)) registry.add(schema, { id: named });
  };
  for (const op of OPERATIONS) {
    if (op.form) add(op.form);
    for (const response of Object.values(op.responses)) if ('json' in response.body) add(response.body.json);
  }
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', uri: (id) => `${COMPONENTS}${id}` }).schemas as Record<string, Json>;
  const components = Object.fromEntries(Object.entries(out).map(([id, schema]) => [id, strip(schema)]));
  const inline = (schema: z.ZodType) => strip(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Json);
  return { components, inline };
}

export function buildOpenApiDocument(): Json {
  const { components, inline } = convert();
  const schemaOf = (schema: z.ZodType): Json => {
    const named = z.globalRegistry.get(schema)?.id;
    return named ? { $ref: `${COMPONENTS}${named}` } : inline(schema);
  };
  const content = (body: Body): Json | undefined => {
    if ('json' in body) return { 'application/json': { schema: schemaOf(body.json) } };
    if ('readingPackage' in body) return { 'application/json': { schema: { $ref: `${COMPONENTS}${PACKAGE}` } } };
    if ('markdown' in body) return { 'text/markdown': { schema: { type: 'string' } } };
    if ('html' in body) return { 'text/html': { schema: { type: 'string' } } };
    if ('prometheus' in body) return { 'text/plain': { schema: { type: 'string' } } };
    if ('eventStream' in body) return { 'text/event-stream': { schema: { type: 'string' } } };
    if ('binary' in body) return { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } };
    return undefined;
  };
  const response = (spec: ResponseSpec): Json => ({
    description: spec.description,
    ...(spec.headers ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) } : {}),
    ...(content(spec.body) ? { content: content(spec.body) } : {}),
  });
  const operation = (op: Operation): Json => ({
    operationId: op.operationId,
    summary: op.summary,
    ...(op.auth === 'tenant' ? {} : { security: op.auth === 'admin' ? [{ adminToken: [] }] : [] }),
    ...(op.params
      ? { parameters: Object.entries(op.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema: schemaOf(schema), description: (schemaOf(schema).description as string | undefined) ?? name })) }
      : {}),
    ...(op.form ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: schemaOf(op.form) } } } } : {}),
    responses: Object.fromEntries(Object.entries(op.responses).map(([status, spec]) => [status, response(spec)])),
  });
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Readpack API',
      version: '2',
      description: 'Upload a document, poll its job, fetch the reading package. Errors are `{"error": {"code", "message", …}}` (docs/errors.md).',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A tenant API key; none in single-tenant dev mode.' },
        adminToken: { type: 'http', scheme: 'bearer', description: '`ADMIN_TOKEN` or `ADMIN_VIEWER_TOKEN` (also as the password of HTTP Basic); loopback needs none in single-tenant dev mode.' },
      },
      schemas: { ...components, [PACKAGE]: readingPackageSchema() },
    },
  };
}

let cached: { json: string; document: Json } | undefined;
/** Built once per process: the document is a pure function of the code. */
export function openApiDocument(): { json: string; document: Json } {
  if (!cached) {
    const document = buildOpenApiDocument();
    cached = { document, json: JSON.stringify(document) };
  }
  return cached;
}
