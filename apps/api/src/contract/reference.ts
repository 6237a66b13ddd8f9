import { HTTP_ERROR_CODES } from './error-codes.js';
import { OPERATIONS, type Body } from './operations.js';

/*
 * The human reference, from the same table as the OpenAPI document: Markdown for docs/api.md
 * (a test keeps the file in step) and a static HTML page for /api/docs (no scripts, no CDN: the
 * API's CSP allows nothing from anywhere).
 */

function bodyLabel(body: Body): string {
  if ('readingPackage' in body) return 'ReadingPackage (reading-package.v2.schema.json)';
  if ('markdown' in body) return 'text/markdown';
  if ('html' in body) return 'text/html';
  if ('prometheus' in body) return 'text/plain (Prometheus)';
  if ('eventStream' in body) return 'text/event-stream (Server-Sent Events)';
  if ('binary' in body) return 'bytes (the asset\'s media type)';
  if ('none' in body) return '—';
  const id = (body.json.meta() as { id?: string } | undefined)?.id;
  return id ?? 'JSON';
}

interface Row {
  route: string;
  auth: string;
  summary: string;
  responses: { status: string; body: string; description: string }[];
}

function rows(): Row[] {
  return OPERATIONS.map((op) => ({
    route: `${op.method.toUpperCase()} ${op.path}`,
    auth: { tenant: 'API key', admin: 'admin token', none: 'none' }[op.auth],
    summary: op.summary,
    responses: Object.entries(op.responses).map(([status, spec]) => ({ status, body: bodyLabel(spec.body), description: spec.description })),
  }));
}

const cell = (text: string) => text.replaceAll('|', '\\|');

export function renderMarkdownReference(): string {
  const out = [
    '# API reference',
    '',
    '<!-- Generated from apps/api/src/contract (test: apps/api/test/openapi.test.ts). Do not edit by hand. -->',
    '',
    'The machine-readable document is served at `GET /api/openapi.json` (OpenAPI 3.1) and rendered at `GET /api/docs`.',
    'Error bodies are `{"error": {"code", "message", …details}}`; codes in [errors.md](errors.md).',
    '',
  ];
  for (const row of rows()) {
    out.push(`## \`${row.route}\``, '', `${row.summary} Authentication: ${row.auth}.`, '', '| status | body | when |', '| --- | --- | --- |');
    for (const r of row.responses) out.push(`| ${r.status} | ${cell(r.body)} | ${cell(r.description)} |`);
    out.push('');
  }
  out.push('## Error codes', '', HTTP_ERROR_CODES.map((c) => `\`${c}\``).join(', '), '');
  return out.join('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Backticks become <code>, after escaping. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

export function renderHtmlReference(): string {
  const sections = rows().map(
    (row) =>
      `<section><h2><code>${escapeHtml(row.route)}</code></h2><p>${inline(row.summary)} Authentication: ${row.auth}.</p>` +
      `<table><thead><tr><th>status</th><th>body</th><th>when</th></tr></thead><tbody>` +
      row.responses.map((r) => `<tr><td>${r.status}</td><td>${inline(r.body)}</td><td>${inline(r.description)}</td></tr>`).join('') +
      `</tbody></table></section>`,
  );
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Readpack API reference</title></head><body>` +
    `<h1>Readpack API reference</h1><p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>` +
    sections.join('') +
    `<h2>Error codes</h2><p>${HTTP_ERROR_CODES.map((c) => `<code>${c}</code>`).join(', ')}</p></body></html>`
  );
}
