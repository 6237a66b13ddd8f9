import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Debian packages this repository needs on the machine, installed with apt-get when that is
 * possible without asking anyone (root, apt-get present), else reported as the command a human
 * has to run. `npm test`'s pretest (ensure-redis-cli.ts) and `npm start` (main.ts) use it.
 */

/** Something the machine must have, and the Debian packages that provide it. */
export interface SystemRequirement {
  /** Installed together when `present()` is false. */
  packages: string[];
  present(): boolean;
  /** What it is for, for people reading a log or an error: "Chinese OCR language data". */
  purpose: string;
}

export interface EnsureSystemOptions {
  isRoot?: boolean;
  find?: (name: string) => string | undefined;
  /** Runs a command with inherited stdio; resolves to its exit code. */
  run?: (command: string, args: readonly string[], env: NodeJS.ProcessEnv) => Promise<number | null>;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export type EnsureSystemResult =
  /** `installed`: the packages apt-get installed, empty when everything was present already. */
  | { ok: true; installed: string[] }
  /** `missing`: the requirements still not met; `command`: what a human has to run for them. */
  | { ok: false; missing: SystemRequirement[]; command: string; reason: string };

/** Debian's own locations, searched even when PATH lacks them (sbin is often missing for non-root). */
const SYSTEM_DIRS = ['/usr/local/bin', '/usr/bin', '/usr/sbin', '/bin', '/sbin'];

export function findExecutable(name: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  const dirs = [...(searchPath ?? '').split(delimiter).filter(Boolean), ...SYSTEM_DIRS];
  for (const dir of new Set(dirs)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here (or not executable): keep looking.
    }
  }
  return undefined;
}

/** The packages of the requirements, each once, in order. */
export function packagesOf(requirements: readonly SystemRequirement[]): string[] {
  return [...new Set(requirements.flatMap((r) => r.packages))];
}

/** The install command for a human: as root, or through sudo. */
export function aptInstallCommand(packages: readonly string[], root: boolean): string {
  const sudo = root ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

function describeMissing(requirements: readonly SystemRequirement[]): string {
  return requirements.map((r) => `${r.packages.join(' + ')} (${r.purpose})`).join(', ');
}

/**
 * Checks every requirement; installs what is missing with one `apt-get update` and one
 * `apt-get install` (non-interactive, no recommended extras) when running as root with apt-get.
 * Otherwise, or when apt-get fails, reports what is missing and the command to run by hand.
 */
export async function ensureSystemPackages(
  requirements: readonly SystemRequirement[],
  options: EnsureSystemOptions = {},
): Promise<EnsureSystemResult> {
  const missing = requirements.filter((r) => !r.present());
  if (missing.length === 0) return { ok: true, installed: [] };

  const find = options.find ?? ((name: string) => findExecutable(name));
  const root = options.isRoot ?? process.getuid?.() === 0;
  const packages = packagesOf(missing);
  const command = aptInstallCommand(packages, root);
  const failed = (reason: string, still: readonly SystemRequirement[] = missing): EnsureSystemResult => ({ ok: false, missing: [...still], command, reason });
  const aptGet = find('apt-get');
  if (!root) return failed(`not installed: ${packages.join(', ')}; installing needs root`);
  if (!aptGet) return failed(`not installed: ${packages.join(', ')}; apt-get is not available`);

  const run = options.run ?? ((cmd, args, env) => runInherited(cmd, args, env, options.signal));
  const env: NodeJS.ProcessEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  options.log?.(`missing: ${describeMissing(missing)}; running: ${command}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    if (options.signal?.aborted) return failed('interrupted before apt-get finished');
    const code = await run(aptGet, args, env);
    if (code !== 0) return failed(`apt-get ${args.join(' ')} failed (exit code ${code})`);
  }
  const still = missing.filter((r) => !r.present());
  if (still.length > 0) return failed(`apt-get install succeeded but still missing: ${describeMissing(still)}`, still);
  return { ok: true, installed: packages };
}

/**
 * A pretest's whole job (`npm test`, `npm run test:scale`): ensure `requirements`, say what was
 * installed, or say what is missing with the command to run by hand and set a failing exit code.
 */
export async function ensureForPretest(who: string, requirements: readonly SystemRequirement[]): Promise<void> {
  const result = await ensureSystemPackages(requirements, { log: (line) => console.log(line) });
  if (!result.ok) {
    console.error(`${who} needs system packages (${result.reason}):`);
    for (const requirement of result.missing) console.error(`  ${requirement.packages.join(' ')}: ${requirement.purpose}`);
    console.error('Install them with:');
    console.error(result.command);
    process.exitCode = 1;
  } else if (result.installed.length > 0) {
    console.log(`installed ${result.installed.join(' ')}`);
  }
}

function runInherited(command: string, args: readonly string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env, signal });
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  });
}

// ---------------------------------------------------------------------------------------------
// This repository's requirements.

/**
 * Where Debian's tesseract-ocr-<lang> packages put their data; the same constant as
 * DEBIAN_TESSDATA_DIR in packages/ocr/src/tessdata.ts (a test keeps the two equal).
 */
export const DEBIAN_TESSDATA_DIR = '/usr/share/tesseract-ocr/5/tessdata';

export function redisServerRequirement(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement {
  return { packages: ['redis-server'], present: () => find('redis-server') !== undefined, purpose: 'Redis for queues and job state' };
}

/** `<lang>.traineddata[.gz]` in `dir`: what the OCR package accepts (packages/ocr/src/tessdata.ts). */
export function hasLanguageData(lang: string, dir: string): boolean {
  return [`${lang}.traineddata`, `${lang}.traineddata.gz`].some((file) => existsSync(join(dir, file)));
}

/** Debian's tesseract-ocr-<lang> package: `chi_sim` → tesseract-ocr-chi-sim. */
export function languageDataRequirement(lang: string, purpose: string, dir = DEBIAN_TESSDATA_DIR): SystemRequirement {
  return { packages: [`tesseract-ocr-${lang.replace(/_/g, '-')}`], present: () => hasLanguageData(lang, dir), purpose };
}

/** A Chinese font fontconfig knows about (`fc-list :lang=zh` lists one). */
export function hasCjkFont(find: (name: string) => string | undefined = (name) => findExecutable(name)): boolean {
  const fcList = find('fc-list');
  if (!fcList) return false;
  // The first run on a machine builds fontconfig's cache: give it time.
  const listed = spawnSync(fcList, [':lang=zh', 'family'], { encoding: 'utf8', timeout: 60_000 });
  return listed.status === 0 && listed.stdout.trim() !== '';
}

export function cjkFontRequirement(purpose: string, present: () => boolean = () => hasCjkFont()): SystemRequirement {
  return { packages: ['fonts-wqy-zenhei', 'fontconfig'], present, purpose };
}

/** Debian's Chromium at the path the web app's browser test launches (test/web/browser.ts). */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export function chromiumRequirement(present: () => boolean = () => existsSync(DEBIAN_CHROMIUM)): SystemRequirement {
  return { packages: ['chromium'], present, purpose: 'a headless browser for the web app test (driven by playwright-core)' };
}

/**
 * LibreOffice headless for the convert stage: the writer, calc and impress import filters, without
 * the GUI (about 300 MB installed). The tests need it; `npm start` never installs it (too large for
 * a default): conversion is on when it is present (README, "Conversion with LibreOffice").
 */
export const LIBREOFFICE_PACKAGES = ['libreoffice-core-nogui', 'libreoffice-writer-nogui', 'libreoffice-calc-nogui', 'libreoffice-impress-nogui'];

export function libreOfficeRequirement(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement {
  return { packages: LIBREOFFICE_PACKAGES, present: () => find('soffice') !== undefined, purpose: 'LibreOffice for the convert stage (PPT, RTF, ODT, ODP → PDF)' };
}

/**
 * poppler's `pdftotext`, the reference the PDF parser tests compare against, with `poppler-data`
 * (its predefined CJK CMaps: without them pdftotext reads no text of a non-embedded CJK font).
 */
export function popplerRequirement(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement {
  return { packages: ['poppler-utils', 'poppler-data'], present: () => find('pdftotext') !== undefined && existsSync('/usr/share/poppler/cMap'), purpose: 'pdftotext and its CJK CMaps, the reference of the PDF tests' };
}

/**
 * qpdf, which splits a large PDF once into one file per slice (apps/worker/src/pdf-split.ts):
 * without it every slice opens the whole PDF, slower and larger, but the document is read.
 */
export function qpdfRequirement(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement {
  return { packages: ['qpdf'], present: () => find('qpdf') !== undefined, purpose: 'qpdf, to split large PDFs into one file per slice' };
}

/**
 * What `npm run test:scale` needs besides the suite's own packages: redis-cli (`--cluster create`),
 * redis-sentinel (the Sentinel failover test) and iproute2's `ip` (network namespaces for the
 * consumers-on-other-hosts test).
 */
export function scaleRequirements(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement[] {
  return [
    { packages: ['redis-server'], present: () => find('redis-server') !== undefined && find('redis-cli') !== undefined, purpose: 'the nodes of the throwaway Redis Cluster and redis-cli --cluster create' },
    { packages: ['redis-sentinel'], present: () => find('redis-sentinel') !== undefined, purpose: 'the three sentinels of the Sentinel failover test' },
    { packages: ['iproute2'], present: () => find('ip') !== undefined, purpose: 'network namespaces and veth links of the multi-host test' },
  ];
}

/** Debian's native tesseract executable (OCR_ENGINE=native; bench:ocr compares against it). */
export function nativeTesseractRequirement(find: (name: string) => string | undefined = (name) => findExecutable(name)): SystemRequirement {
  return { packages: ['tesseract-ocr'], present: () => find('tesseract') !== undefined, purpose: 'native tesseract (OCR_ENGINE=native)' };
}

/** A Japanese and Korean font (`fc-list :lang=ja` and `:lang=ko` list one): Noto Sans CJK has both. */
export function hasJapaneseKoreanFont(find: (name: string) => string | undefined = (name) => findExecutable(name)): boolean {
  const fcList = find('fc-list');
  if (!fcList) return false;
  return [':lang=ja', ':lang=ko'].every((lang) => {
    const listed = spawnSync(fcList, [lang, 'family'], { encoding: 'utf8', timeout: 60_000 });
    return listed.status === 0 && listed.stdout.trim() !== '';
  });
}

/** Languages `ocrLang=auto` chooses besides eng and chi_sim, and OSD's data for images. */
export const AUTO_OCR_LANGUAGES: readonly [string, string][] = [
  ['jpn', 'Japanese OCR language data'],
  ['chi_tra', 'Traditional Chinese OCR language data'],
  ['kor', 'Korean OCR language data'],
  ['osd', 'script detection (OSD) for images without a language'],
];

function autoLanguageRequirements(dir?: string): SystemRequirement[] {
  return AUTO_OCR_LANGUAGES.map(([lang, purpose]) => languageDataRequirement(lang, purpose, dir));
}

export function cjkFontsRequirement(purpose: string, present: () => boolean = () => hasJapaneseKoreanFont()): SystemRequirement {
  return { packages: ['fonts-noto-cjk', 'fontconfig'], present, purpose };
}

/**
 * What the test suite needs: a throwaway redis-server (unless REDIS_URL points at a Redis), both
 * OCR languages in Debian's directory (the OCR tests read it directly; the pipeline tests build
 * their config without TESSDATA_DIR), a Chinese font for the test images and the CJK render test,
 * and Chromium for the web app test.
 */
export function testRequirements(env: NodeJS.ProcessEnv = process.env): SystemRequirement[] {
  return [
    ...(env.REDIS_URL ? [] : [redisServerRequirement()]),
    languageDataRequirement('eng', 'English OCR language data'),
    languageDataRequirement('chi_sim', 'Chinese OCR language data'),
    ...autoLanguageRequirements(),
    nativeTesseractRequirement(),
    cjkFontRequirement('a Chinese font for the CJK test images and render tests'),
    cjkFontsRequirement('Japanese and Korean fonts for the OCR test images'),
    libreOfficeRequirement(),
    popplerRequirement(),
    qpdfRequirement(),
    chromiumRequirement(),
  ];
}

/**
 * What `npm start`'s consumers use when present, besides Redis: OCR language data in Debian's
 * directory, unless TESSDATA_DIR names the only directory the OCR consumer reads (apt-get cannot
 * fill that one), and a Chinese font, which the render consumer draws CJK text of non-embedded
 * PDF fonts with (packages/render/src/cjk-fallback.ts), and qpdf, which splits large PDFs into
 * one file per slice. Without them the service still runs: Chinese OCR fails with
 * `language_data_missing`, English falls back to @tesseract.js-data/eng, such CJK text renders as
 * empty boxes, and every slice of a large PDF opens the whole file (slower, more memory).
 */
export function runtimeRequirements(tessdataDir: string | undefined): SystemRequirement[] {
  return [
    ...(tessdataDir
      ? []
      : [
          languageDataRequirement('chi_sim', 'Chinese OCR (ocrLang=chi_sim)'),
          languageDataRequirement('eng', "English OCR with Debian's faster model (else the bundled one)"),
          ...autoLanguageRequirements(),
        ]),
    nativeTesseractRequirement(),
    cjkFontRequirement('rendering CJK text of PDFs that do not embed their fonts'),
    cjkFontsRequirement('rendering Japanese and Korean text of PDFs that do not embed their fonts'),
    qpdfRequirement(),
  ];
}
