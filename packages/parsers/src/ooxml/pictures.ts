import { posix } from 'node:path';
import type { FigureBlock } from '@readpack/reading-package';
import { embeddedImage } from '../document.js';
import type { EmbeddedImage } from '../types.js';
import type { OfficePackage } from './package.js';

/** Media type of an image part from its extension (packages name them `image1.png` etc.). */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  emf: 'image/x-emf',
  wmf: 'image/x-wmf',
};

export function imageMediaType(name: string): string {
  return IMAGE_TYPES[posix.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';
}

/** A figure waiting for the bytes of the package part its picture shows. */
export interface PicturePart {
  block: FigureBlock;
  part: string;
}

/**
 * Reads every picture part once and gives each figure its asset: the sha256 of the part's bytes,
 * stored byte for byte. Images are named `image-N.ext` in order of first use (on the page of the
 * first figure showing them); identical bytes under two part names are one image. A reference to
 * a missing part leaves its figure without an asset.
 */
export async function readPictureParts(pkg: OfficePackage, pictures: PicturePart[]): Promise<EmbeddedImage[]> {
  const byPart = new Map<string, EmbeddedImage | undefined>();
  const bySha = new Map<string, EmbeddedImage>();
  for (const { block, part } of pictures) {
    if (!byPart.has(part)) {
      const data = await pkg.read(part);
      let image: EmbeddedImage | undefined;
      if (data) {
        const ext = posix.extname(part).slice(1).toLowerCase() || 'bin';
        const extra = block.page === undefined ? {} : { page: block.page };
        const candidate = embeddedImage(`image-${bySha.size + 1}.${ext}`, imageMediaType(part), new Uint8Array(data), extra);
        image = bySha.get(candidate.sha256) ?? candidate;
        bySha.set(image.sha256, image);
      }
      byPart.set(part, image);
    }
    const image = byPart.get(part);
    if (image) block.asset = image.sha256;
  }
  return [...bySha.values()];
}
