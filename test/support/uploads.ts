import { readFile } from 'node:fs/promises';
import { fixturePath } from '@readpack/testing';
import { upload } from '../harness.js';

export interface Accepted {
  jobId: string;
  statusUrl: string;
}

export interface AcceptedBatch {
  batchId: string;
  statusUrl: string;
  files: { index: number; name: string; jobId: string }[];
}

/** Uploads corpus fixtures; anything but 202 fails with the answer's body, which says why. */
async function accepted<T>(base: string, names: string[], batch: boolean): Promise<T> {
  const files = await Promise.all(names.map(async (name) => ({ name, data: await readFile(fixturePath(name)), field: batch ? 'files' : 'file' })));
  const res = await upload(base, files, batch ? '/api/files/batch' : '/api/files');
  const body = await res.text();
  if (res.status !== 202) throw new Error(`upload of ${names.join(', ')} answered ${res.status}: ${body}`);
  return JSON.parse(body) as T;
}

export function uploadFixture(base: string, name: string): Promise<Accepted> {
  return accepted<Accepted>(base, [name], false);
}

export function uploadBatch(base: string, names: string[]): Promise<AcceptedBatch> {
  return accepted<AcceptedBatch>(base, names, true);
}
