import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', pagesDict];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
