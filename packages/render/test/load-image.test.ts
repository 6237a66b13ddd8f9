import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { fixturePath } from '@readpack/testing';
import { RenderError, loadImageForOcr } from '@readpack/render';
import { bmp24, bmp32v5, bmpHeaderOnly } from './bmp-files.js';

async function rgbOf(path: string): Promise<{ rgb: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(path).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: data, width: info.width, height: info.height };
}

function maxDifference(a: Buffer, b: Buffer): number {
  let max = 0;
  for (let i = 0; i < a.length; i += 1) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

describe('loadImageForOcr', () => {
  it('reads a PNG as one gray byte per pixel, with no dpi when the file states none', async () => {
    const image = await loadImageForOcr(fixturePath('testocr.png'));
    expect(image).toMatchObject({ width: 640, height: 480, format: 'png', dpi: 0, scale: 1, sourceWidth: 640 });
    expect(image.gray).toHaveLength(640 * 480);
  });

  it('reads a colour JPEG as gray', async () => {
    const image = await loadImageForOcr(fixturePath('baiona_color.jpg'));
    expect(image.format).toBe('jpeg');
    expect(image.gray).toHaveLength(image.width * image.height);
    expect(new Set(image.gray).size).toBeGreaterThan(50);
  });

  it('reads TIFF and WebP to the same pixels as the PNG they were made from', async () => {
    const fromPng = await loadImageForOcr(fixturePath('testocr.png'));
    const flat = sharp(fixturePath('testocr.png')).flatten({ background: '#ffffff' });
    for (const [format, bytes] of [
      ['tiff', await flat.clone().tiff({ compression: 'lzw' }).toBuffer()],
      ['webp', await flat.clone().webp({ lossless: true }).toBuffer()],
    ] as const) {
      const image = await loadImageForOcr(bytes);
      expect(image).toMatchObject({ format, width: 640, height: 480 });
      expect(maxDifference(image.gray, fromPng.gray)).toBeLessThanOrEqual(1);
    }
  });

  it('downscales to maxOutputPixels and reports the scale', async () => {
    const image = await loadImageForOcr(fixturePath('typewriter.png'), { maxOutputPixels: 4_000_000 });
    expect(image.sourceWidth).toBe(4000);
    expect(image.width * image.height).toBeLessThanOrEqual(4_000_000);
    expect(image.width * image.height).toBeGreaterThan(3_900_000);
    expect(image.scale).toBeCloseTo(image.width / 4000, 6);
  });

  it('refuses an image above maxPixels before decoding it', async () => {
    await expect(loadImageForOcr(fixturePath('typewriter.png'), { maxPixels: 1_000_000 })).rejects.toMatchObject({ code: 'image_too_large' });
    await expect(loadImageForOcr(bmpHeaderOnly(100_000, 100_000))).rejects.toMatchObject({ code: 'image_too_large' });
  });

  it('applies EXIF orientation and keeps a stated density', async () => {
    // 40×20 stored, orientation 6 (rotate 90° clockwise to display): 20×40 displayed.
    const jpeg = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#808080' } })
      .withMetadata({ orientation: 6, density: 200 })
      .jpeg()
      .toBuffer();
    const image = await loadImageForOcr(jpeg);
    expect(image).toMatchObject({ width: 20, height: 40, dpi: 200, sourceWidth: 20, sourceHeight: 40 });
  });

  it('decodes BMP (classic and V5 headers) to the same pixels as the PNG it was made from', async () => {
    const { rgb, width, height } = await rgbOf(fixturePath('testocr.png'));
    const fromPng = await loadImageForOcr(await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer());
    for (const bmp of [bmp24(rgb, width, height), bmp32v5(rgb, width, height)]) {
      const image = await loadImageForOcr(bmp);
      expect(image).toMatchObject({ width, height, format: 'bmp', dpi: 300 });
      expect(maxDifference(image.gray, fromPng.gray)).toBeLessThanOrEqual(1);
    }
  });

  it('refuses bytes that are no image', async () => {
    const err = await loadImageForOcr(Buffer.from('just some text, not an image')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderError);
    expect(err).toMatchObject({ code: 'unsupported_image' });
    await expect(loadImageForOcr(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'))).rejects.toMatchObject({
      code: 'unsupported_image',
    });
  });
});
