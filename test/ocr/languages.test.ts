import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { textPng, type TestScript } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, type Pipeline } from '../harness.js';

interface Block {
  type: string;
  page?: number;
  text: string;
  bbox?: number[];
  origin: { parser: string; engine: string };
}
interface Page {
  index: number;
  text: string;
  origin: { engine: string };
  ocr?: { lang: string; langSource: string; chosen: boolean; reason: string; text?: string; origin: { parser: string } };
}
interface Manifest {
  text: string;
  pages: Page[];
  body: Block[];
}

let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => pipeline?.stop());

async function send(name: string, data: Uint8Array, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([data]), name);
  const res = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function finished(jobId: string): Promise<Manifest> {
  const history = await pollUntilTerminal(pipeline.api.url, jobId, 180_000);
  expect(history.at(-1)).toMatchObject({ status: 'done' });
  return (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as Manifest;
}

describe('OCR picks its language when the upload names none', () => {
  it.each([
    ['jpn', ['日本語の文字認識', 'ひらがなとカタカナ']],
    ['chi_tra', ['繁體中文測試', '光學識別技術']],
    ['kor', ['안녕하세요 세계', '한국어 문자 인식']],
  ] as [TestScript, string[]][])('an image of %s text is read with that language, chosen from its pixels', async (lang, lines) => {
    const manifest = await finished(await send(`${lang}.png`, await textPng(lines, { script: lang, size: 40 })));
    const [page] = manifest.pages;
    expect(page!.ocr).toMatchObject({ lang, langSource: 'osd', chosen: true });
    expect(page!.text).toBe(lines.join(lang === 'kor' ? ' ' : ''));
    // Tesseract's paragraphs are the page's blocks, with boxes in the image's pixels.
    expect(manifest.body.length).toBeGreaterThan(0);
    for (const block of manifest.body) {
      expect(block).toMatchObject({ type: 'paragraph', page: 0, origin: { engine: 'ocr', parser: 'tesseract.js' } });
      expect(block.bbox).toHaveLength(4);
    }
  }, 240_000);

  it('the one-line 320×180 chi_sim image (glyphs ≈ 28 px) reads exactly through the pipeline', async () => {
    const png = await textPng(['我们把图片变'], { script: 'chi_sim', size: 30, width: 320, height: 180 });
    const manifest = await finished(await send('line.png', png, { ocrLang: 'chi_sim' }));
    expect(manifest.pages[0]!.text).toBe('我们把图片变');
  }, 240_000);

  it('an upload that names a language is read with it, and says it was asked for', async () => {
    const manifest = await finished(await send('jpn.png', await textPng(['ひらがなとカタカナ'], { script: 'jpn', size: 40 }), { ocrLang: 'jpn' }));
    expect(manifest.pages[0]!.ocr).toMatchObject({ lang: 'jpn', langSource: 'request' });
    expect(manifest.pages[0]!.text).toBe('ひらがなとカタカナ');
  }, 240_000);
});

describe('OCR_ENGINE=native', () => {
  it("reads through Debian's tesseract, and the page says so", async () => {
    const native = await startPipeline({ OCR_ENGINE: 'native' });
    try {
      const form = new FormData();
      form.append('file', new Blob([await textPng(['안녕하세요 세계', '한국어 문자 인식'], { script: 'kor', size: 40 })]), 'kor.png');
      const res = await fetch(`${native.api.url}/api/files`, { method: 'POST', body: form });
      const { jobId } = (await res.json()) as { jobId: string };
      const history = await pollUntilTerminal(native.api.url, jobId, 180_000);
      expect(history.at(-1)).toMatchObject({ status: 'done' });
      const manifest = (await (await fetch(`${native.api.url}/api/files/job/${jobId}/package`)).json()) as Manifest;
      expect(manifest.pages[0]!.ocr).toMatchObject({ lang: 'kor', langSource: 'osd', chosen: true, origin: { parser: 'tesseract' } });
      expect(manifest.pages[0]!.text).toBe('안녕하세요 세계 한국어 문자 인식');
      expect(manifest.body[0]!.origin).toMatchObject({ parser: 'tesseract', engine: 'ocr' });
    } finally {
      await native.stop();
    }
  }, 240_000);
});

describe('OCR never makes a page worse', () => {
  it('a page whose text layer is right is never replaced by worse OCR', async () => {
    // A short correct Latin text layer (below OCR_MIN_CHARS_PER_PAGE, so the page is routed to
    // OCR) over a picture of Japanese glyphs and noise: the page's language comes from its text
    // (eng), and English OCR of the picture is junk.
    const doc = await PDFDocument.create();
    const page = doc.addPage([420, 300]);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    page.drawText('Invoice 2024-117 paid', { x: 30, y: 260, size: 14, font });
    const picture = await doc.embedPng(await textPng(['日本語の文字認識', '東京都千代田区丸の内'], { script: 'jpn', size: 36, lineHeight: 44 }));
    page.drawImage(picture, { x: 30, y: 40, width: 360, height: (360 * picture.height) / picture.width });
    const manifest = await finished(await send('invoice.pdf', await doc.save()));
    const [only] = manifest.pages;
    expect(only!.origin.engine).toBe('text-layer');
    expect(only!.text).toContain('Invoice 2024-117 paid');
    expect(only!.ocr).toMatchObject({ lang: 'eng', langSource: 'text', chosen: false });
    expect(only!.ocr!.reason).toMatch(/^the text layer is kept: /);
    // OCR's reading is kept beside the layer, never lost.
    expect(only!.ocr!.text).toBeDefined();
    expect(manifest.text).toContain('Invoice 2024-117 paid');
  }, 240_000);
});
