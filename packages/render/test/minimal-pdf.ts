/** Hand-built PDFs for tests: the objects given are numbered from 1; object 1 must be the catalog. */
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

export function streamObject(content: Buffer | string, extraDict = ''): Buffer {
  const bytes = Buffer.from(content);
  return Buffer.concat([Buffer.from(`<< /Length ${bytes.length}${extraDict} >>\nstream\n`), bytes, Buffer.from('\nendstream')]);
}

/** A one-page PDF, 200×100 pt, whose page draws `content`. */
export function onePagePdf(content: Buffer | string, extraDict = ''): Buffer {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>',
    streamObject(content, extraDict),
  ]);
}

/** Fraction of pixels darker than mid-gray. */
export function darkFraction(gray: Buffer): number {
  let dark = 0;
  for (const v of gray) if (v < 128) dark += 1;
  return dark / gray.length;
}
