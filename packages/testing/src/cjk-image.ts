import { createCanvas, GlobalFonts } from '@napi-rs/canvas';

const CJK_FAMILIES = ['Noto Sans CJK SC', 'Noto Serif CJK SC', 'Noto Sans CJK JP', 'WenQuanYi Zen Hei', 'WenQuanYi Micro Hei', 'Droid Sans Fallback'];

/**
 * A PNG of Chinese text drawn with a CJK font installed on the machine (Debian's fonts-wqy-zenhei
 * or fonts-noto-cjk; `npm test` installs one). Throws, naming the package, when none is installed.
 */
export async function cjkTextPng(lines: string[]): Promise<Buffer> {
  const families = new Set(GlobalFonts.families.map((f) => f.family));
  const family = CJK_FAMILIES.find((f) => families.has(f));
  if (!family) throw new Error('no CJK font installed: apt-get install -y fonts-wqy-zenhei');
  const canvas = createCanvas(1200, 60 + lines.length * 110);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000000';
  ctx.font = `64px "${family}"`;
  lines.forEach((line, i) => ctx.fillText(line, 40, 100 + i * 110));
  return canvas.encode('png');
}
