/**
 * Hand-built PDFs for tests: `objects` are numbered from 1 and object 1 must be the catalog. The
 * cross-reference table is computed from the bytes, so a test can put anything (broken streams,
 * absurd page sizes, an empty page tree) inside a file every reader can still open.
 */
export function buildPdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    offsets.push(length);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object: its dictionary (with the right /Length, plus `extraDict`) and `content`. */
export function streamObject(content: Buffer | string, extraDict = ''): Buffer {
  const bytes = Buffer.from(content);
  return Buffer.concat([Buffer.from(`<< /Length ${bytes.length}${extraDict} >>\nstream\n`), bytes, Buffer.from('\nendstream')]);
}
