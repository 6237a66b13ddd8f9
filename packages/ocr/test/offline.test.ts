import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { containsSnippet, corpusManifest, fixturePath, repoRoot } from '@readpack/testing';

// A child process starting Node, a worker and OCR: seconds, many times that on a loaded shared machine.
jest.setTimeout(120_000);

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'readpack-ocr-offline-'));

// Runs in a child process on the built package (as deployed), with the network trapped.
const childProgram = `
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { OcrEngine } from '@readpack/ocr';

const CONTROL_URL = 'https://cdn.jsdelivr.net/npm/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz';
const inMain = await fetch(CONTROL_URL).then(() => 'reached', () => 'blocked');
const inThread = await new Promise((resolve) => {
  // Evaluated like this program (--input-type=module), with the same --require preload.
  const w = new Worker(
    "import { parentPort } from 'node:worker_threads';" +
    "fetch(" + JSON.stringify(CONTROL_URL) + ").then(() => parentPort.postMessage('reached'), () => parentPort.postMessage('blocked'));",
    { eval: true },
  );
  w.once('message', (m) => { resolve(m); void w.terminate(); });
});
const engine = new OcrEngine({ concurrency: 1 });
try {
  const page = await engine.recognize(readFileSync(process.env.OCR_IMAGE));
  process.stdout.write(JSON.stringify({ inMain, inThread, text: page.text }));
} finally {
  await engine.close();
}
`;

function runOffline(image: string, log: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', join(here, 'no-network.cjs'), '--input-type=module', '-e', childProgram], {
      cwd: repoRoot(),
      env: { ...process.env, NO_NETWORK_LOG: log, OCR_IMAGE: image },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('OCR without a network', () => {
  it('recognises a page with every network call trapped, and tries none', async () => {
    const log = join(workDir, 'network.log');
    const result = await runOffline(fixturePath('testocr.png'), log);
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    const out = JSON.parse(result.stdout) as { inMain: string; inThread: string; text: string };
    // Controls: the trap is active in the main thread and in worker threads (where tesseract.js runs).
    expect(out.inMain).toBe('blocked');
    expect(out.inThread).toBe('blocked');
    for (const snippet of corpusManifest().find((f) => f.name === 'testocr.png')!.snippets) {
      expect(containsSnippet(out.text, snippet.text)).toBe(true);
    }
    // The two control calls are the only network attempts: OCR itself made none.
    const attempts = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt).toContain('cdn.jsdelivr.net');
  });
});
