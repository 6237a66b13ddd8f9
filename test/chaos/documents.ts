import { readFile } from 'node:fs/promises';
import { PARSEABLE_MEDIA_TYPES } from '@readpack/media';
import { corpusManifest, fixturePath, type CorpusEntry } from '@readpack/testing';

/** How a document must end: `done`, or `failed` with this code (docs/errors.md). */
export type Outcome = { status: 'done' } | { status: 'failed'; code: string };

export interface ChaosDocument {
  /** The upload's filename; unique per distinct content, so it is also the document's key. */
  name: string;
  data: Buffer;
  expected: Outcome;
  /** Uploaded twice at once in the chaos run: the second upload usually joins the first job (active-only dedup). */
  uploadTwice: boolean;
  /** Seconds of work or more (a scan or image read by OCR, a 117-page PDF): uploaded first. */
  heavy: boolean;
}

/** The corpus documents that are meant to fail, with the code they must fail with. */
export const MEANT_TO_FAIL: Record<string, string> = {
  'pdflatex-4-pages.truncated.pdf': 'corrupt_document',
  'invalid.pdf': 'corrupt_document',
  'libreoffice-writer-password.pdf': 'encrypted_document',
};

/** Text-layer PDFs that tolerate a trailing comment after %%EOF: each variant is new content, parsed like the original. */
export const VARIANT_SOURCES = ['REPAIR-2022-INV-001_multipage.pdf', 'pdflatex-image.pdf', 'jo.pdf', 'GeoTopo-komprimiert.pdf'];

/** The corpus files whose type Readpack accepts at upload (the rest would answer 415). */
function uploadableCorpus(): CorpusEntry[] {
  return corpusManifest().filter((entry) => entry.media_type in PARSEABLE_MEDIA_TYPES);
}

const HEAVY_BYTES = 1024 * 1024;

/**
 * `count` distinct documents (never fewer than the uploadable corpus): every uploadable corpus
 * file once (scans and images go through render and OCR), then variants of text-layer PDFs (real parsing work, seconds for GeoTopo, so kills
 * land mid-parse), then generated text, Markdown and CSV documents. Distinct content matters:
 * identical concurrent uploads are merged by the active-only dedup. The same `count` always
 * yields the same bytes, so a calm run and a chaos run can be compared byte for byte.
 */
export async function chaosDocuments(count: number): Promise<ChaosDocument[]> {
  const documents: ChaosDocument[] = [];
  for (const entry of uploadableCorpus()) {
    const code = MEANT_TO_FAIL[entry.name];
    const data = await readFile(fixturePath(entry.name));
    const heavy = entry.has_text_layer === false || data.length > HEAVY_BYTES;
    documents.push({ name: entry.name, data, expected: code ? { status: 'failed', code } : { status: 'done' }, uploadTwice: true, heavy });
  }
  const remaining = Math.max(0, count - documents.length);
  documents.push(...(await pdfVariants(Math.floor(remaining / 5))));
  for (let i = 0; documents.length < count; i += 1) documents.push(generatedText(i));
  return documents;
}

/** `count` distinct text-layer PDFs: corpus PDFs, each with a numbered comment after %%EOF. */
export async function pdfVariants(count: number, sources: readonly string[] = VARIANT_SOURCES): Promise<ChaosDocument[]> {
  const variants: ChaosDocument[] = [];
  for (let i = 0; i < count; i += 1) {
    const source = sources[i % sources.length]!;
    const original = await readFile(fixturePath(source));
    const data = Buffer.concat([original, Buffer.from(`\n%readpack chaos variant ${i}\n`)]);
    variants.push({ name: `variant-${String(i).padStart(3, '0')}-${source}`, data, expected: { status: 'done' }, uploadTwice: false, heavy: data.length > HEAVY_BYTES });
  }
  return variants;
}

function generatedText(index: number): ChaosDocument {
  const id = String(index).padStart(4, '0');
  const kind = index % 3;
  if (kind === 2) {
    const rows = ['document,row,value', ...Array.from({ length: 40 + index }, (_, r) => `chaos-${id},${r},${(index * 31 + r * 7) % 997}`)];
    return { name: `chaos-${id}.csv`, data: Buffer.from(`${rows.join('\n')}\n`), expected: { status: 'done' }, uploadTwice: false, heavy: false };
  }
  const paragraphs = Array.from(
    { length: 20 + (index % 7) },
    (_, p) => `Paragraph ${p} of chaos document ${id}. Readpack must finish this document exactly once, whatever happens to its consumers.`,
  );
  const body = kind === 1 ? `# Chaos document ${id}\n\n${paragraphs.join('\n\n')}\n` : `${paragraphs.join('\n')}\n`;
  return { name: `chaos-${id}.${kind === 1 ? 'md' : 'txt'}`, data: Buffer.from(body), expected: { status: 'done' }, uploadTwice: false, heavy: false };
}
