import { buildPdf, streamObject } from '@readpack/testing';

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
