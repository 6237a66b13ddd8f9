import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * LibreOffice headless as a converter to PDF: one `soffice --convert-to pdf` child per document,
 * in a profile private to this process (two soffice processes sharing a profile wait on each
 * other's lock, or hand the document to the other's running instance), in a process group of its
 * own so a timeout kills soffice.bin and everything it started, not just the `soffice` script.
 */

const SYSTEM_DIRS = ['/usr/local/bin', '/usr/bin', '/opt/libreoffice/program'];
/** What soffice prints on stdout/stderr that is worth keeping in an error message. */
const OUTPUT_LIMIT = 2_000;

export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  constructor(
    readonly code: 'conversion_failed' | 'conversion_timeout',
    message: string,
  ) {
    super(message);
  }
}

/** `configured` (SOFFICE_PATH), else `soffice` on PATH or in the usual places; undefined when absent. */
export function findSoffice(configured: string | undefined, searchPath: string | undefined = process.env.PATH): string | undefined {
  const candidates = configured ? [configured] : [...new Set([...(searchPath ?? '').split(delimiter).filter(Boolean), ...SYSTEM_DIRS])].map((dir) => join(dir, 'soffice'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here, or not executable: try the next place.
    }
  }
  return undefined;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

/**
 * Runs soffice in a new process group; past `timeoutMs` the whole group is SIGKILLed. `groups`
 * holds the group while it runs, so closing the converter can kill what is still running.
 */
function runGroup(binary: string, args: string[], timeoutMs: number, groups?: Set<number>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: process.env.HOME ?? tmpdir() } });
    if (child.pid !== undefined) groups?.add(child.pid);
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < OUTPUT_LIMIT) output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (child.pid !== undefined) groups?.delete(child.pid);
      // soffice.bin can outlive the script that started it (a crash, a timeout): never leave one behind.
      killGroup(child.pid);
      resolve({ code, signal, output: output.slice(0, OUTPUT_LIMIT), timedOut });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    // ESRCH: the group is already gone, which is the aim.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

const PROFILE_PREFIX = 'readpack-lo-';
const PROFILE_NAME = /^readpack-lo-(\d+)$/;

/**
 * What a consumer that died (SIGKILL, OOM) left behind: the profile of a pid that no longer runs,
 * and any soffice still working in it (its own process group outlives the consumer). Found by the
 * profile path on their command line (/proc), killed by group, the profile removed.
 */
export async function reapOrphans(log: (message: string, meta: Record<string, unknown>) => void): Promise<void> {
  const dir = tmpdir();
  // Exactly `readpack-lo-<pid>`: nothing else in the temporary directory is ours to judge.
  const stale = (await readdir(dir)).filter((name) => {
    const pid = PROFILE_NAME.exec(name)?.[1];
    return pid !== undefined && !alive(Number(pid));
  });
  if (stale.length === 0) return;
  const procs = await readdir('/proc').catch(() => [] as string[]);
  for (const entry of procs) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    // The profile path as a whole argument part: `/tmp/readpack-lo-12` must not match `/tmp/readpack-lo-123`.
    if (stale.some((name) => new RegExp(`${escapeRegExp(join(dir, name))}(?![\\w.-])`).test(cmdline))) {
      log('killing a LibreOffice left by a dead convert consumer', { pid: Number(entry) });
      killGroup(Number(entry));
      try {
        process.kill(Number(entry), 'SIGKILL');
      } catch {
        // Gone with its group already.
      }
    }
  }
  for (const name of stale) await rm(join(dir, name), { recursive: true, force: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class LibreOffice {
  /** This process's own profile, kept across conversions (a fresh profile costs ~2 s per start). */
  readonly profileDir = join(tmpdir(), `${PROFILE_PREFIX}${process.pid}`);
  /** Process groups of the conversions running now. */
  private readonly running = new Set<number>();

  constructor(
    readonly binary: string,
    readonly version: string,
    private readonly timeoutMs: number,
  ) {}

  /** Finds soffice and asks its version; rejects when it is missing or does not answer. */
  static async open(configured: string | undefined, timeoutMs: number): Promise<LibreOffice> {
    const binary = findSoffice(configured);
    if (!binary) throw new Error(`LibreOffice (soffice) not found${configured ? ` at SOFFICE_PATH=${configured}` : ' on PATH'}`);
    const run = await runGroup(binary, ['--version'], 30_000);
    const version = /LibreOffice\s+([\d.]+)/.exec(run.output)?.[1];
    if (run.code !== 0 || !version) throw new Error(`${binary} --version did not answer as LibreOffice: ${run.output.trim() || `exit ${run.code}`}`);
    return new LibreOffice(binary, version, timeoutMs);
  }

  /**
   * Converts `input` (its extension tells LibreOffice the format) into `<outDir>/<name>.pdf`.
   * Success is the PDF existing and non-empty, not the exit code: soffice answers 0 after
   * "Error: source file could not be loaded".
   */
  async toPdf(input: string, outDir: string): Promise<string> {
    const args = [
      `-env:UserInstallation=${pathToFileURL(this.profileDir).href}`,
      '--headless',
      '--invisible',
      '--nologo',
      '--norestore',
      '--nodefault',
      '--nolockcheck',
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      input,
    ];
    const run = await runGroup(this.binary, args, this.timeoutMs, this.running);
    if (run.timedOut) {
      // A killed instance can leave its profile locked or half-written: start the next one clean.
      await rm(this.profileDir, { recursive: true, force: true });
      throw new ConversionError('conversion_timeout', `LibreOffice did not finish converting within ${this.timeoutMs} ms (CONVERT_TIMEOUT_MS); it was stopped.`);
    }
    const pdf = join(outDir, `${basename(input, extname(input))}.pdf`);
    const size = await stat(pdf).then(
      (s) => s.size,
      () => 0,
    );
    if (size > 0) return pdf;
    const said = run.output.replace(/Warning: failed to launch javaldx[^\n]*\n?/g, '').trim();
    if (run.signal) await rm(this.profileDir, { recursive: true, force: true });
    throw new ConversionError('conversion_failed', `LibreOffice could not convert the document to PDF${said ? `: ${said}` : ''} (exit ${run.code ?? run.signal}).`);
  }

  /** Kills what still runs (a shutdown past its grace period), then removes the profile. */
  async close(): Promise<void> {
    for (const group of this.running) killGroup(group);
    await rm(this.profileDir, { recursive: true, force: true });
  }
}
