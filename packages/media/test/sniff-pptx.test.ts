import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pptxgenjs from 'pptxgenjs';
import { sniffMediaType } from '../src/index.js';

/** pptxgenjs runs as ESM (its default export is the class) but types itself as CommonJS, where the class is `.default`. */
const PptxGenJS = pptxgenjs as unknown as typeof pptxgenjs.default;

describe('PPTX sniffing', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'readpack-media-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts a PowerPoint presentation by its bytes, whatever its name', async () => {
    const pptx = new PptxGenJS();
    pptx.addSlide().addText('Hello', { x: 1, y: 1, w: 3, h: 1 });
    const path = join(dir, 'upload.bin');
    await writeFile(path, Buffer.from((await pptx.write({ outputType: 'nodebuffer' })) as Uint8Array));
    expect(await sniffMediaType(path, 'slides.pdf')).toEqual({
      supported: true,
      mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      kind: 'pptx',
    });
  });
});
