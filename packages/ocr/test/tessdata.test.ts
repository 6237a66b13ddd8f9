import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DEBIAN_TESSDATA_DIR, OcrEngine, OcrError, parseLanguages, resolveLanguageData } from '@readpack/ocr';

const scratch = mkdtempSync(join(tmpdir(), 'readpack-tessdata-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function thrown(fn: () => unknown): OcrError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OcrError) return err;
    throw err;
  }
  throw new Error('expected an OcrError');
}

describe('language data on local disk', () => {
  it("uses Debian's uncompressed files when they are installed", () => {
    const data = resolveLanguageData(['eng', 'chi_sim']);
    expect(data).toEqual({
      langs: ['eng', 'chi_sim'],
      langPath: DEBIAN_TESSDATA_DIR,
      gzip: false,
      files: [join(DEBIAN_TESSDATA_DIR, 'eng.traineddata'), join(DEBIAN_TESSDATA_DIR, 'chi_sim.traineddata')],
    });
  });

  it('falls back to the gzipped best_int model of @tesseract.js-data/eng, for eng alone', () => {
    const data = resolveLanguageData(['eng'], undefined, join(scratch, 'no-system-dir'));
    expect(data.gzip).toBe(true);
    expect(data.langPath).toMatch(/@tesseract\.js-data[/\\]eng[/\\]4\.0\.0_best_int$/);
    // No package holds chi_sim, and a set is always read from one directory.
    expect(thrown(() => resolveLanguageData(['eng', 'chi_sim'], undefined, join(scratch, 'no-system-dir'))).code).toBe('language_data_missing');
  });

  it('reads an explicit tessdataDir only, and names TESSDATA_DIR when a language is missing there', () => {
    const dir = mkdtempSync(join(scratch, 'only-eng-'));
    copyFileSync(join(DEBIAN_TESSDATA_DIR, 'eng.traineddata'), join(dir, 'eng.traineddata'));
    expect(resolveLanguageData(['eng'], dir)).toMatchObject({ langPath: dir, gzip: false });
    // Debian has chi_sim, but an explicit directory is the only place looked at.
    const err = thrown(() => resolveLanguageData(['chi_sim'], dir));
    expect(err.code).toBe('language_data_missing');
    expect(err.message).toContain('chi_sim.traineddata');
    expect(err.message).toContain(dir);
    expect(err.message).toContain('TESSDATA_DIR');
  });

  it('refuses a damaged traineddata file before a worker would load it', () => {
    const dir = mkdtempSync(join(scratch, 'damaged-'));
    writeFileSync(join(dir, 'eng.traineddata'), readFileSync(join(DEBIAN_TESSDATA_DIR, 'eng.traineddata')).subarray(0, 100_000));
    const err = thrown(() => resolveLanguageData(['eng'], dir));
    expect(err.code).toBe('language_data_invalid');
    expect(err.message).toMatch(/truncated/);
  });

  it('fails at construction for a language declared up front', () => {
    const err = thrown(() => new OcrEngine({ languages: ['eng', 'xyz_missing'] }));
    expect(err.code).toBe('language_data_missing');
    expect(err.message).toContain('xyz_missing.traineddata');
    expect(err.message).toContain('TESSDATA_DIR');
  });

  it('accepts only plain language codes (they become file names)', () => {
    expect(parseLanguages('eng+chi_sim')).toEqual(['eng', 'chi_sim']);
    expect(parseLanguages(['eng', 'eng'])).toEqual(['eng']);
    expect(thrown(() => parseLanguages('../etc/passwd')).code).toBe('invalid_language');
    expect(thrown(() => parseLanguages('')).code).toBe('invalid_language');
  });
});
