import { describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { fixturePath } from '@readpack/testing';
import { encodePng, encodePreview, renderPdfPage } from '@readpack/render';

describe('encoding rendered pages', () => {
  it('writes a lossless gray PNG carrying the dpi, and small previews', async () => {
    const page = await renderPdfPage({ path: fixturePath('MEDRPT-2024-PAT-3847_medical_report_scan.pdf'), pageIndex: 0, dpi: 150 });

    const png = await encodePng(page);
    expect(png).toMatchObject({ mediaType: 'image/png', width: page.width, height: page.height });
    // A one-channel file, pixel for pixel the render.
    expect(await sharp(png.data).metadata()).toMatchObject({ format: 'png', channels: 1, density: 150 });
    const decoded = await sharp(png.data).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    expect(decoded.info).toMatchObject({ width: page.width, height: page.height, channels: 1 });
    expect(decoded.data.equals(page.gray)).toBe(true);

    const webp = await encodePreview(page, 400);
    expect(webp).toMatchObject({ mediaType: 'image/webp', width: 400 });
    expect((await sharp(webp.data).metadata()).format).toBe('webp');
    expect(webp.data.length).toBeLessThan(png.data.length / 4);

    const jpeg = await encodePreview(page, 10_000, { format: 'jpeg' });
    // Never enlarged.
    expect(jpeg).toMatchObject({ mediaType: 'image/jpeg', width: page.width });
    expect((await sharp(jpeg.data).metadata()).format).toBe('jpeg');
  });

  it('rejects a gray buffer that does not match its size', async () => {
    await expect(encodePng({ width: 10, height: 10, dpi: 0, gray: Buffer.alloc(99) })).rejects.toThrow(/expected 10×10/);
  });
});
