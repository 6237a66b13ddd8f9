import { afterEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEBIAN_TESSDATA_DIR as OCR_TESSDATA_DIR } from '@readpack/ocr';
import {
  DEBIAN_TESSDATA_DIR,
  aptInstallCommand,
  ensureSystemPackages,
  hasCjkFont,
  languageDataRequirement,
  packagesOf,
  runtimeRequirements,
  testRequirements,
  type SystemRequirement,
} from '../src/system-packages.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'readpack-system-packages-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A requirement met once `installed` holds all its packages, as if apt-get had installed them. */
function requirement(packages: string[], installed: Set<string>, purpose = packages.join(' ')): SystemRequirement {
  return { packages, present: () => packages.every((p) => installed.has(p)), purpose };
}

const aptGet = (name: string) => (name === 'apt-get' ? '/usr/bin/apt-get' : undefined);
const noRun = () => Promise.reject(new Error('must not run anything'));

describe('ensureSystemPackages', () => {
  it('runs nothing when every requirement is present', async () => {
    const installed = new Set(['redis-server', 'tesseract-ocr-eng']);
    const result = await ensureSystemPackages([requirement(['redis-server'], installed), requirement(['tesseract-ocr-eng'], installed)], {
      isRoot: true,
      find: aptGet,
      run: noRun,
    });
    expect(result).toEqual({ ok: true, installed: [] });
  });

  it('installs every missing package with one apt-get update and one apt-get install, non-interactively', async () => {
    const installed = new Set(['redis-server']);
    const calls: { command: string; args: readonly string[]; frontend: string | undefined }[] = [];
    const requirements = [
      requirement(['redis-server'], installed),
      requirement(['tesseract-ocr-chi-sim'], installed),
      requirement(['fonts-wqy-zenhei', 'fontconfig'], installed),
      // Shares a package with the font: installed once.
      requirement(['fontconfig'], installed),
    ];
    const result = await ensureSystemPackages(requirements, {
      isRoot: true,
      find: aptGet,
      run: async (command, args, env) => {
        calls.push({ command, args, frontend: env.DEBIAN_FRONTEND });
        if (args[0] === 'install') for (const p of args.slice(3)) installed.add(p);
        return 0;
      },
    });
    expect(calls).toEqual([
      { command: '/usr/bin/apt-get', args: ['update'], frontend: 'noninteractive' },
      {
        command: '/usr/bin/apt-get',
        args: ['install', '-y', '--no-install-recommends', 'tesseract-ocr-chi-sim', 'fonts-wqy-zenhei', 'fontconfig'],
        frontend: 'noninteractive',
      },
    ]);
    expect(result).toEqual({ ok: true, installed: ['tesseract-ocr-chi-sim', 'fonts-wqy-zenhei', 'fontconfig'] });
  });

  it('asks a non-root user for one sudo command covering every missing package', async () => {
    const installed = new Set(['tesseract-ocr-eng']);
    const chi = requirement(['tesseract-ocr-chi-sim'], installed, 'Chinese OCR');
    const font = requirement(['fonts-wqy-zenhei', 'fontconfig'], installed, 'a Chinese font');
    const result = await ensureSystemPackages([requirement(['tesseract-ocr-eng'], installed), chi, font], { isRoot: false, find: aptGet, run: noRun });
    expect(result).toEqual({
      ok: false,
      missing: [chi, font],
      command: 'sudo apt-get update && sudo apt-get install -y --no-install-recommends tesseract-ocr-chi-sim fonts-wqy-zenhei fontconfig',
      reason: 'not installed: tesseract-ocr-chi-sim, fonts-wqy-zenhei, fontconfig; installing needs root',
    });
  });

  it('gives root the plain command when apt-get is missing', async () => {
    const result = await ensureSystemPackages([requirement(['redis-server'], new Set())], { isRoot: true, find: () => undefined, run: noRun });
    expect(result).toMatchObject({
      ok: false,
      command: 'apt-get update && apt-get install -y --no-install-recommends redis-server',
      reason: expect.stringMatching(/apt-get is not available/),
    });
  });

  it('reports a failed apt-get install with what is missing and the command to run by hand', async () => {
    const missing = requirement(['tesseract-ocr-chi-sim'], new Set());
    const calls: string[] = [];
    const result = await ensureSystemPackages([missing], {
      isRoot: true,
      find: aptGet,
      run: async (_command, args) => {
        calls.push(args[0]!);
        return args[0] === 'install' ? 100 : 0;
      },
    });
    expect(calls).toEqual(['update', 'install']);
    expect(result).toEqual({
      ok: false,
      missing: [missing],
      command: 'apt-get update && apt-get install -y --no-install-recommends tesseract-ocr-chi-sim',
      reason: 'apt-get install -y --no-install-recommends tesseract-ocr-chi-sim failed (exit code 100)',
    });
  });

  it('stops after a failed apt-get update, and treats a command that could not start as failed', async () => {
    const calls: string[] = [];
    const result = await ensureSystemPackages([requirement(['redis-server'], new Set())], {
      isRoot: true,
      find: aptGet,
      run: async (_command, args) => {
        calls.push(args[0]!);
        return null;
      },
    });
    expect(calls).toEqual(['update']);
    expect(result).toMatchObject({ ok: false, reason: 'apt-get update failed (exit code null)' });
  });

  it('fails when apt-get succeeded but a requirement is still not met, naming only that one', async () => {
    const installed = new Set<string>();
    const font: SystemRequirement = { packages: ['fonts-wqy-zenhei', 'fontconfig'], present: () => false, purpose: 'a Chinese font' };
    const chi = requirement(['tesseract-ocr-chi-sim'], installed);
    const result = await ensureSystemPackages([chi, font], {
      isRoot: true,
      find: aptGet,
      run: async (_command, args) => {
        if (args[0] === 'install') for (const p of args.slice(3)) installed.add(p);
        return 0;
      },
    });
    expect(result).toMatchObject({ ok: false, missing: [font], reason: expect.stringMatching(/still missing: fonts-wqy-zenhei \+ fontconfig \(a Chinese font\)$/) });
  });

  it('runs nothing once aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await ensureSystemPackages([requirement(['redis-server'], new Set())], { isRoot: true, find: aptGet, run: noRun, signal: controller.signal });
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/interrupted/) });
  });
});

describe("this repository's requirements", () => {
  it('aptInstallCommand uses sudo only for non-root', () => {
    expect(aptInstallCommand(['a', 'b'], true)).toBe('apt-get update && apt-get install -y --no-install-recommends a b');
    expect(aptInstallCommand(['a'], false)).toBe('sudo apt-get update && sudo apt-get install -y --no-install-recommends a');
  });

  it('the test suite needs redis-server unless REDIS_URL is set, the OCR languages, native tesseract, CJK fonts, LibreOffice, poppler, qpdf and Chromium', () => {
    const ocr = ['tesseract-ocr-eng', 'tesseract-ocr-chi-sim', 'tesseract-ocr-jpn', 'tesseract-ocr-chi-tra', 'tesseract-ocr-kor', 'tesseract-ocr-osd', 'tesseract-ocr'];
    const fonts = ['fonts-wqy-zenhei', 'fontconfig', 'fonts-noto-cjk'];
    const rest = ['libreoffice-core-nogui', 'libreoffice-writer-nogui', 'libreoffice-calc-nogui', 'libreoffice-impress-nogui', 'poppler-utils', 'poppler-data', 'qpdf', 'chromium'];
    expect(packagesOf(testRequirements({}))).toEqual(['redis-server', ...ocr, ...fonts, ...rest]);
    expect(packagesOf(testRequirements({ REDIS_URL: 'redis://127.0.0.1:6379' }))).toEqual([...ocr, ...fonts, ...rest]);
  });

  it('npm start wants OCR data only when TESSDATA_DIR is unset, and a Chinese font and qpdf always', () => {
    expect(packagesOf(runtimeRequirements(undefined))).toEqual([
      'tesseract-ocr-chi-sim',
      'tesseract-ocr-eng',
      'tesseract-ocr-jpn',
      'tesseract-ocr-chi-tra',
      'tesseract-ocr-kor',
      'tesseract-ocr-osd',
      'tesseract-ocr',
      'fonts-wqy-zenhei',
      'fontconfig',
      'fonts-noto-cjk',
      'qpdf',
    ]);
    expect(packagesOf(runtimeRequirements('/srv/tessdata'))).toEqual(['tesseract-ocr', 'fonts-wqy-zenhei', 'fontconfig', 'fonts-noto-cjk', 'qpdf']);
  });

  it("looks for language data where the OCR package does, plain or gzipped, and names Debian's package", () => {
    expect(DEBIAN_TESSDATA_DIR).toBe(OCR_TESSDATA_DIR);
    const dir = tempDir();
    const chi = languageDataRequirement('chi_sim', 'Chinese OCR', dir);
    const eng = languageDataRequirement('eng', 'English OCR', dir);
    expect(chi.packages).toEqual(['tesseract-ocr-chi-sim']);
    expect(chi.present()).toBe(false);
    writeFileSync(join(dir, 'chi_sim.traineddata.gz'), 'x');
    writeFileSync(join(dir, 'eng.traineddata'), 'x');
    expect(chi.present()).toBe(true);
    expect(eng.present()).toBe(true);
  });

  it('sees a Chinese font only when fc-list lists one', () => {
    expect(hasCjkFont(() => undefined)).toBe(false);
    const dir = tempDir();
    const fake = (output: string, code = 0) => {
      const file = join(dir, `fc-list-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, `#!/bin/sh\n[ "$1" = ":lang=zh" ] || exit 2\nprintf '${output}'\nexit ${code}\n`);
      chmodSync(file, 0o755);
      return () => file;
    };
    expect(hasCjkFont(fake('WenQuanYi Zen Hei\\n'))).toBe(true);
    expect(hasCjkFont(fake(''))).toBe(false);
    expect(hasCjkFont(fake('WenQuanYi Zen Hei\\n', 1))).toBe(false);
  });
});
