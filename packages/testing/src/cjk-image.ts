import { createCanvas, GlobalFonts } from '@napi-rs/canvas';

// Sans faces only: chi_sim misread a serif face (Noto Serif CJK) far more often.
const CJK_FAMILIES = ['Noto Sans CJK SC', 'Noto Sans CJK JP', 'WenQuanYi Zen Hei', 'WenQuanYi Micro Hei', 'Droid Sans Fallback'];

/**
 * A PNG of Chinese text drawn with a CJK font installed on the machine (Debian's fonts-wqy-zenhei
 * or fonts-noto-cjk; `npm test` installs one). Throws, naming the package, when none is installed.
 */
export async function cjkTextPng(lines: string[]): Promise<Buffer> {
  const families = new Set(GlobalFonts.families.map((f) => f.family));
  const family = CJK_FAMILIES.find((f) => families.has(f));
  if (!family) throw new Error('no CJK font installed: apt-get install -y fonts-wqy-zenhei');
  // 48 px is 11.5 pt at 300 dpi, body text in a scan. chi_sim misreads some characters in some
  // fonts at some sizes (字 as 子 in WenQuanYi Zen Hei, 技 as 扩 in Noto Sans CJK at 72 px): the
  // tests' sentences were chosen to read right in both fonts at 40–64 px.
  const size = 48;
  const lineHeight = 80;
  const canvas = createCanvas(40 + size * Math.max(...lines.map((l) => l.length)) + 40, 40 + lines.length * lineHeight + 20);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000000';
  ctx.font = `${size}px "${family}"`;
  lines.forEach((line, i) => ctx.fillText(line, 40, 40 + size + i * lineHeight));
  return canvas.encode('png');
}
