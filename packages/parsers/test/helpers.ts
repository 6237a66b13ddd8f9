import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPdf } from '@readpack/testing';
import { DocumentError } from '../src/index.js';

export const PDF = 'application/pdf';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The `DocumentError.code` a promise rejects with, or a description of what else happened. */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof DocumentError ? err.code : `not a DocumentError: ${String(err)}`;
  }
}

/** A scratch folder for generated inputs; `cleanup` removes it. */
export async function scratchDir(): Promise<{ file: (name: string, data: string | Uint8Array) => Promise<string>; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'readpack-parsers-'));
  return {
    file: async (name, data) => {
      const path = join(dir, name);
      await writeFile(path, data);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A structurally valid PDF with the given `/Pages` dictionary and no page objects. */
export function minimalPdf(pagesDict: string): Uint8Array {
  return buildPdf(['<< /Type /Catalog /Pages 2 0 R >>', pagesDict]);
}
