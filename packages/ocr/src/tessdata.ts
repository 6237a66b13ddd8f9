import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OcrError } from './errors.js';
import { languageKey } from './languages.js';
import { traineddataProblem } from './traineddata.js';

/** Where Debian's tesseract-ocr-<lang> packages put their data (tessdata_fast models). */
export const DEBIAN_TESSDATA_DIR = '/usr/share/tesseract-ocr/5/tessdata';

/**
 * The model directory inside a `@tesseract.js-data/<lang>` package. Its default export points at
 * `4.0.0`, the legacy+LSTM model (10.9 MB gzipped for eng); with the LSTM-only engine we run,
 * `4.0.0_best_int` holds the same LSTM network in a quarter of the bytes (docs/benchmarks.md).
 */
const BUNDLED_MODEL = '4.0.0_best_int';

/** What a tesseract.js worker needs to load a language set without touching the network. */
export interface LanguageData {
  langs: string[];
  /** The one directory every language of the set is read from. */
  langPath: string;
  /** Whether the files there are `<lang>.traineddata.gz` (true) or `<lang>.traineddata`. */
  gzip: boolean;
  files: string[];
}

const require = createRequire(import.meta.url);

function bundledDir(lang: string): string | undefined {
  try {
    return join(dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), BUNDLED_MODEL);
  } catch {
    // Not installed: this candidate simply does not exist.
    return undefined;
  }
}

function fileIn(dir: string, lang: string): { file: string; gzip: boolean } | undefined {
  for (const gzip of [false, true]) {
    const file = join(dir, `${lang}.traineddata${gzip ? '.gz' : ''}`);
    if (existsSync(file) && statSync(file).isFile()) return { file, gzip };
  }
  return undefined;
}

/** The directory holds every language of the set, all compressed alike (tesseract.js takes one `gzip` flag). */
function inDirectory(dir: string, langs: string[]): LanguageData | undefined {
  const found = langs.map((lang) => fileIn(dir, lang));
  if (found.some((f) => f === undefined)) return undefined;
  const files = found as { file: string; gzip: boolean }[];
  if (files.some((f) => f.gzip !== files[0]!.gzip)) return undefined;
  return { langs, langPath: dir, gzip: files[0]!.gzip, files: files.map((f) => f.file) };
}

function missing(langs: string[], dirs: string[], explicit: boolean): OcrError {
  const where = dirs.length > 0 ? dirs.join(', ') : '(no candidate directory)';
  const fix = explicit
    ? 'put the files there or point TESSDATA_DIR at a directory that has them'
    : `install them (Debian: apt-get install ${langs.map((l) => `tesseract-ocr-${l.replace(/_/g, '-')}`).join(' ')}) or set TESSDATA_DIR to a directory that has them`;
  return new OcrError(
    'language_data_missing',
    `OCR language data for "${languageKey(langs)}" not found: looked for ${langs.map((l) => `${l}.traineddata[.gz]`).join(', ')} in ${where}; ${fix}. Readpack never downloads language data.`,
  );
}

/**
 * Finds the traineddata of a language set on local disk. An explicit `tessdataDir` (the caller
 * reads TESSDATA_DIR) is the only place looked at: a silent fallback would hide a
 * misconfiguration. Without one: Debian's directory, then a `@tesseract.js-data/<lang>` package
 * (one-language sets only, as each package is its own directory).
 */
export function resolveLanguageData(langs: string[], tessdataDir?: string, systemDir = DEBIAN_TESSDATA_DIR): LanguageData {
  const explicit = tessdataDir !== undefined && tessdataDir !== '';
  const candidates = explicit
    ? [tessdataDir]
    : [systemDir, ...(langs.length === 1 ? [bundledDir(langs[0]!)].filter((d): d is string => d !== undefined) : [])];
  for (const dir of candidates) {
    const data = inDirectory(dir, langs);
    if (data) {
      for (const file of data.files) {
        const problem = traineddataProblem(readFileSync(file));
        if (problem) throw new OcrError('language_data_invalid', `OCR language data ${file} is unusable: ${problem}`);
      }
      return data;
    }
  }
  throw missing(langs, candidates, explicit);
}
