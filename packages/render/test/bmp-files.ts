/** BMP files written by hand for tests (sharp cannot write BMP). Rows bottom-up, 4-byte aligned. */

function fileHeader(total: number, pixelOffset: number): Buffer {
  const h = Buffer.alloc(14);
  h.write('BM', 0, 'latin1');
  h.writeUInt32LE(total, 2);
  h.writeUInt32LE(pixelOffset, 10);
  return h;
}

function infoFields(size: number, width: number, height: number, bpp: number, compression: number, imageBytes: number): Buffer {
  const h = Buffer.alloc(size);
  h.writeUInt32LE(size, 0);
  h.writeInt32LE(width, 4);
  h.writeInt32LE(height, 8);
  h.writeUInt16LE(1, 12);
  h.writeUInt16LE(bpp, 14);
  h.writeUInt32LE(compression, 16);
  h.writeUInt32LE(imageBytes, 20);
  h.writeUInt32LE(11811, 24); // 300 dpi in pixels per metre
  h.writeUInt32LE(11811, 28);
  return h;
}

/** 24-bit BI_RGB with the classic 40-byte header, from RGB pixels. */
export function bmp24(rgb: Buffer, width: number, height: number): Buffer {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const row = (height - 1 - y) * stride;
    for (let x = 0; x < width; x += 1) {
      const s = (y * width + x) * 3;
      pixels[row + x * 3] = rgb[s + 2]!;
      pixels[row + x * 3 + 1] = rgb[s + 1]!;
      pixels[row + x * 3 + 2] = rgb[s]!;
    }
  }
  const info = infoFields(40, width, height, 24, 0, pixels.length);
  return Buffer.concat([fileHeader(14 + 40 + pixels.length, 54), info, pixels]);
}

/** 32-bit BI_BITFIELDS (BGRA masks) with a 124-byte V5 header, as GIMP and ImageMagick write them. */
export function bmp32v5(rgb: Buffer, width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    const row = (height - 1 - y) * width * 4;
    for (let x = 0; x < width; x += 1) {
      const s = (y * width + x) * 3;
      pixels[row + x * 4] = rgb[s + 2]!;
      pixels[row + x * 4 + 1] = rgb[s + 1]!;
      pixels[row + x * 4 + 2] = rgb[s]!;
      pixels[row + x * 4 + 3] = 0xff;
    }
  }
  const info = infoFields(124, width, height, 32, 3, pixels.length);
  info.writeUInt32LE(0x00ff0000, 40);
  info.writeUInt32LE(0x0000ff00, 44);
  info.writeUInt32LE(0x000000ff, 48);
  info.writeUInt32LE(0xff000000, 52);
  info.write('BGRs', 56, 'latin1');
  return Buffer.concat([fileHeader(14 + 124 + pixels.length, 14 + 124), info, pixels]);
}

/** Just a header claiming a huge image: a decompression bomb must be refused from it alone. */
export function bmpHeaderOnly(width: number, height: number): Buffer {
  return Buffer.concat([fileHeader(54, 54), infoFields(40, width, height, 24, 0, 0)]);
}
