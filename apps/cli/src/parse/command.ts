import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { ApiAnswerError, ReadpackClient, type JobStatus } from './client.js';
import { followJob } from './progress-source.js';

export interface ParseOptions {
  server: string;
  key?: string;
  engine?: string;
  lang?: string;
  out: string;
  format: 'json' | 'md';
}

interface FileOutcome {
  file: string;
  ok: boolean;
  /** The written package, or the reason the file failed. */
  detail: string;
}

/** At most this many uploads in flight: the server queues the rest anyway. */
const UPLOADS_AT_ONCE = 4;

/**
 * `readpack parse <files…>`: uploads every file, shows one progress bar per file (stages and
 * pages), writes each finished package (JSON or Markdown) into `--out`, and returns the exit
 * code: 0 when every file was parsed, 1 when any failed (each failure printed with its reason).
 */
export async function parseFiles(files: string[], options: ParseOptions): Promise<number> {
  const client = new ReadpackClient({ server: options.server, key: options.key });
  const out = resolve(options.out);
  await mkdir(out, { recursive: true });
  const names = outputNames(files, options.format);
  const tty = Boolean(process.stderr.isTTY);
  const bars = new cliProgress.MultiBar(
    { format: '{file} |{bar}| {percentage}% {state}', hideCursor: true, clearOnComplete: false, stopOnComplete: false, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  const width = Math.max(...files.map((f) => basename(f).length));
  const outcomes: FileOutcome[] = [];
  const queue = files.map((file, index) => ({ file, index }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const label = basename(next.file).padEnd(width);
      const bar = tty ? bars.create(1, 0, { file: label, state: 'uploading' }) : undefined;
      const show = (status: JobStatus) => {
        const total = Math.max(status.progress.total, 1);
        if (bar) {
          bar.setTotal(total);
          bar.update(status.status === 'done' ? total : status.progress.done, { state: status.status === 'processing' ? status.phase : status.status });
        }
      };
      outcomes[next.index] = await parseOne(client, next.file, join(out, names[next.index]!), options, show);
      if (!tty) {
        const o = outcomes[next.index]!;
        process.stderr.write(`${o.ok ? 'done  ' : 'failed'} ${basename(o.file)}: ${o.detail}\n`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(UPLOADS_AT_ONCE, files.length) }, worker));
  } finally {
    bars.stop();
  }
  for (const o of outcomes) process.stdout.write(`${o.ok ? '✓' : '✗'} ${o.file} → ${o.detail}\n`);
  return outcomes.every((o) => o.ok) ? 0 : 1;
}

async function parseOne(client: ReadpackClient, file: string, target: string, options: ParseOptions, show: (s: JobStatus) => void): Promise<FileOutcome> {
  try {
    const fields: Record<string, string> = {};
    if (options.engine) fields.engine = options.engine;
    if (options.lang) fields.ocrLang = options.lang;
    const { jobId } = await client.upload(file, fields);
    const final = await followJob(client, jobId, show);
    if (final.status === 'failed') return { file, ok: false, detail: `${final.error?.code ?? 'failed'}: ${final.error?.message ?? 'the job failed'}` };
    await writeFile(target, options.format === 'md' ? await client.markdown(jobId) : await client.package(jobId));
    return { file, ok: true, detail: target };
  } catch (error) {
    if (error instanceof ApiAnswerError) return { file, ok: false, detail: `${error.code}: ${error.message}` };
    return { file, ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

/** `report.pdf` → `report.pdf.json` (or `.md`); a name seen twice gets `-2`, `-3`… */
function outputNames(files: string[], format: 'json' | 'md'): string[] {
  const seen = new Map<string, number>();
  return files.map((file) => {
    const name = basename(file);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return `${name}${n > 1 ? `-${n}` : ''}.${format}`;
  });
}
