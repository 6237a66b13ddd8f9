import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { Queue } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { connectTestRedis, fixturePath } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, type Pipeline } from '../harness.js';
import { errorCode, TenantClient, type JobStatus, type UploadFile } from './support/client.js';
import { documentedJobErrorCodes } from './support/error-codes.js';
import {
  BILLION_LAUGHS,
  buildZip,
  docxWithImage,
  documentXml,
  ELF,
  emptyPdf,
  heapHungryCsv,
  minimalDocx,
  minimalXlsx,
  pngBomb,
  textPdf,
} from './support/hostile-documents.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

const KEY = 'mallory-key-0123456789abcdef';
const MiB = 1024 * 1024;
const MAX_PAGES = 50;
const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * Hostile and broken input, end to end: every case ends in a 4xx at upload or in a terminal job
 * with a documented code (or a valid package), and the consumers keep taking the next job.
 */
describe('hostile and broken documents', () => {
  let pipeline: Pipeline;
  let client: TenantClient;
  const codes = documentedJobErrorCodes();
  let bombs: Record<'ratio' | 'entries' | 'declared' | 'liar', Buffer>;

  beforeAll(async () => {
    // The zip bombs are built before any request: deflating hundreds of MiB blocks this process
    // for seconds, and a pooled connection the API closed meanwhile (its keep-alive timeout) was
    // then reused for the next upload and reset (a flake seen in two runs of the full suite).
    bombs = {
      // Ratio: 64 MiB of zeros in a ~64 KiB entry.
      ratio: minimalDocx({ extra: [{ name: 'word/media/zeros.bin', data: Buffer.alloc(64 * MiB) }] }),
      // Entry count: 10 001 empty entries.
      entries: minimalDocx({ extra: Array.from({ length: 10_001 }, (_, i) => ({ name: `customXml/i${i}.xml`, data: '', method: 0 as const })) }),
      // Total: sizes the central directory declares (600 MiB), checked before inflating anything.
      declared: lieAboutSize(minimalDocx({ extra: [{ name: 'word/media/a.bin', data: 'tiny' }] }), 'word/media/a.bin', 600 * MiB),
      // Lies: declared 10 KiB, inflates to 256 MiB.
      liar: minimalDocx({ extra: [{ name: 'word/media/liar.bin', data: Buffer.alloc(256 * MiB), declaredSize: 10 * 1024 }] }),
    };
    pipeline = await startPipeline({ API_KEYS: `${KEY}:mallory`, MAX_PAGES: String(MAX_PAGES) });
    client = new TenantClient(pipeline.api.url, KEY);
  });
  afterAll(async () => pipeline?.stop());

  async function outcome(file: UploadFile, fields: Record<string, string> = {}): Promise<JobStatus> {
    const final = await client.terminal(await client.submit(file, fields), 90_000);
    if (final.status === 'failed') expect(codes).toContain(final.error?.code);
    return final;
  }
  const failedWith = async (file: UploadFile, code: string, fields: Record<string, string> = {}) => {
    expect(await outcome(file, fields)).toMatchObject({ status: 'failed', error: { code } });
  };

  it('corrupt and truncated PDFs fail as corrupt_document', async () => {
    await failedWith({ name: 'truncated.pdf', data: await readFile(fixturePath('pdflatex-4-pages.truncated.pdf')) }, 'corrupt_document');
    await failedWith({ name: 'invalid.pdf', data: await readFile(fixturePath('invalid.pdf')) }, 'corrupt_document');
    const whole = textPdf();
    await failedWith({ name: 'cut.pdf', data: whole.subarray(0, whole.indexOf('xref') - 40) }, 'corrupt_document');
  });

  it('a 0-byte file is refused at upload', async () => {
    const res = await client.upload({ name: 'nothing.pdf', data: new Uint8Array() });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('empty_file');
  });

  it('a PDF with 0 pages fails as empty_document, one with more than MAX_PAGES as too_many_pages', async () => {
    await failedWith({ name: 'no-pages.pdf', data: emptyPdf() }, 'empty_document');
    await failedWith({ name: 'many-pages.pdf', data: textPdf({ pages: MAX_PAGES + 1 }) }, 'too_many_pages');
    expect(await outcome({ name: 'just-enough.pdf', data: textPdf({ pages: MAX_PAGES }) })).toMatchObject({ status: 'done' });
  }, 120_000);

  it('huge page dimensions and a decompression-bomb image end terminal without taking anything down', async () => {
    // 14400 × 14400 units × UserUnit 75000: about a billion points a side. Text extraction never
    // rasterizes it; a stage that renders must refuse it by MAX_IMAGE_PIXELS.
    const giant = await outcome({ name: 'giant-page.pdf', data: textPdf({ mediaBox: '[0 0 14400 14400]', pageExtra: '/UserUnit 75000' }) });
    expect(giant.status).toBe('done');
    // The same page with too little text for the text layer: routed to render + OCR, whose pixel
    // limit must refuse it (the page, or the whole job) before anything is allocated.
    const scanned = await outcome({ name: 'giant-scan.pdf', data: textPdf({ mediaBox: '[0 0 14400 14400]', pageExtra: '/UserUnit 75000', text: 'x' }) });
    expect(scanned.status === 'done' || scanned.error?.code === 'page_too_large').toBe(true);
    // A 10-gigapixel PNG uploaded as an image to OCR: refused by MAX_IMAGE_PIXELS before decoding.
    expect(await outcome({ name: 'pixels.png', data: pngBomb() })).toMatchObject({ status: 'failed', error: { code: 'image_too_large' } });
    // A 10-gigapixel PNG in 300 bytes, inside a DOCX: stored as an asset, never decoded here.
    const bomb = await outcome({ name: 'pixels.docx', data: docxWithImage(pngBomb()) });
    expect(bomb.status === 'done' || bomb.error?.code === 'image_too_large').toBe(true);
    if (bomb.status === 'done') {
      const manifest = (await (await client.get(`/api/files/job/${bomb.jobId}/package`)).json()) as { assets: { url: string }[] };
      const asset = await client.get(new URL(manifest.assets[0]!.url).pathname);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      expect(asset.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  }, 120_000);

  it('an encrypted PDF fails as encrypted_document without its password, and with a wrong one', async () => {
    const data = await readFile(fixturePath('libreoffice-writer-password.pdf'));
    await failedWith({ name: 'locked.pdf', data }, 'encrypted_document');
    await failedWith({ name: 'locked.pdf', data }, 'encrypted_document', { password: 'not-the-password' });
  });

  it('an encrypted PDF opens with the right password, which is never stored in clear', async () => {
    const data = await readFile(fixturePath('libreoffice-writer-password.pdf'));
    const jobId = await client.submit({ name: 'locked.pdf', data }, { password: 'openpassword' });
    const redis: RedisClient = connectTestRedis();
    const queue = new Queue('extract', { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
    try {
      const payload = JSON.stringify((await queue.getJob(jobId))?.data);
      expect(payload).toMatch(/"secrets":\{"password":"v1\./);
      expect(payload).not.toContain('openpassword');
      expect(JSON.stringify(await redis.hgetall(`${pipeline.config.redis.prefix}:job:${jobId}`))).not.toContain('openpassword');
    } finally {
      await queue.close();
      await redis.quit();
    }
    expect(await client.terminal(jobId)).toMatchObject({ status: 'done' });
  });

  it('DOCX/XLSX zip bombs fail as archive_too_large before any parser inflates them', async () => {
    for (const [name, data] of Object.entries(bombs)) await failedWith({ name: `${name}.docx`, data }, 'archive_too_large');
  });

  it('XML entity expansion and external entities are refused (unsupported_content)', async () => {
    await failedWith({ name: 'laughs.docx', data: minimalDocx({ documentXml: documentXml(['&lol9;'], BILLION_LAUGHS) }) }, 'unsupported_content');
    const xxe = '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    await failedWith({ name: 'xxe.xlsx', data: minimalXlsx('<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&xxe;</t></is></c></row></sheetData>', xxe) }, 'unsupported_content');
  });

  it('the sniffed type wins over the extension and the declared type; what Readpack cannot parse is 415', async () => {
    const pdfAsDocx = await outcome({ name: 'report.docx', data: textPdf(), type: DOCX });
    expect(pdfAsDocx).toMatchObject({ status: 'done', source: { mediaType: PDF } });
    const docxAsPdf = await outcome({ name: 'report.pdf', data: minimalDocx(), type: PDF });
    expect(docxAsPdf).toMatchObject({ status: 'done', source: { mediaType: DOCX } });
    for (const [name, data] of [
      ['invoice.pdf', ELF],
      ['archive.docx', buildZip([{ name: 'readme.txt', data: 'not an office document' }])],
      ['backup.pdf', gzipSync(Buffer.from('a compressed archive, not a document'))],
    ] as const) {
      const res = await client.upload({ name, data, type: PDF });
      expect(res.status).toBe(415);
      expect(await errorCode(res)).toBe('unsupported_media_type');
    }
  });

  it('filenames are sanitized for storage and display, the original kept as metadata', async () => {
    const cases: [string, string][] = [
      ['../../etc/passwd.txt', 'passwd.txt'],
      ['C:\\Windows\\system32\\notes.txt', 'notes.txt'],
      // C1 controls, a right-to-left override and a zero-width space (they disguise extensions).
      ['evil\u0085\u009b[31m\u202egpj\u200b.txt', 'evil[31mgpj.txt'],
      ['..', 'upload'],
    ];
    for (const [name, shown] of cases) {
      const status = await client.status(await client.submit({ name, data: Buffer.from(`text for ${JSON.stringify(name)}`) }));
      expect(status.source).toMatchObject({ filename: shown, originalFilename: name });
    }
    const long = `${'é'.repeat(4000)}.txt`;
    const status = await client.status(await client.submit({ name: long, data: Buffer.from('long name') }));
    expect([...status.source.filename]).toHaveLength(255);
    expect(status.source.originalFilename).toBe(long);
  });

  it('C0 control characters in a filename are refused at upload (busboy rejects the part header)', async () => {
    const res = await client.upload({ name: 'evil\u0000\u0007\u001b.txt', data: Buffer.from('x') });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_upload');
  });

  it('a megabyte-long filename is refused at upload, not stored', async () => {
    const res = await client.upload({ name: `${'文'.repeat(350_000)}.txt`, data: Buffer.from('x') });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_upload');
  });

  it('after all of the above, the consumers still take the next job', async () => {
    expect(await outcome({ name: 'after.docx', data: await readFile(fixturePath('footnotes.docx')) })).toMatchObject({ status: 'done' });
  });
});

describe('parses that run too long or need too much memory', () => {
  it('a parse past PARSE_TIMEOUT_MS fails as timeout, and the consumer takes the next job', async () => {
    const pipeline = await startPipeline({ API_KEYS: `${KEY}:mallory`, PARSE_TIMEOUT_MS: '1000', EXTRACT_CONCURRENCY: '1' });
    try {
      const client = new TenantClient(pipeline.api.url, KEY);
      // 117 pages: about three seconds of pdfjs work.
      const slow = await client.submit({ name: 'slow.pdf', data: await readFile(fixturePath('GeoTopo-komprimiert.pdf')) });
      const next = await client.submit({ name: 'next.txt', data: Buffer.from('the job behind the slow one') });
      expect(await client.terminal(slow)).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
      expect(await client.terminal(next)).toMatchObject({ status: 'done' });
    } finally {
      await pipeline.stop();
    }
  }, 120_000);

  it('a parse past PARSE_MAX_HEAP_MB fails as resource_limit, and the consumer takes the next job', async () => {
    const pipeline = await startPipeline({ API_KEYS: `${KEY}:mallory`, PARSE_MAX_HEAP_MB: '64', EXTRACT_CONCURRENCY: '1' });
    try {
      const client = new TenantClient(pipeline.api.url, KEY);
      const hungry = await client.submit({ name: 'cells.csv', data: heapHungryCsv() });
      const next = await client.submit({ name: 'next.txt', data: Buffer.from('the job behind the hungry one') });
      expect(await client.terminal(hungry)).toMatchObject({ status: 'failed', error: { code: 'resource_limit' } });
      expect(await client.terminal(next)).toMatchObject({ status: 'done' });
    } finally {
      await pipeline.stop();
    }
  }, 120_000);
});

/** Rewrites the uncompressed size of `name` in the central directory (not the local header): a declared-size bomb. */
function lieAboutSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  const central = out.indexOf(Buffer.concat([Buffer.from([0x50, 0x4b, 0x01, 0x02])]));
  for (let at = central; at >= 0; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    const nameLength = out.readUInt16LE(at + 28);
    if (out.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      out.writeUInt32LE(size, at + 24);
      return out;
    }
  }
  throw new Error(`${name} is not in the archive`);
}
