import { createCanvas, GlobalFonts } from '@napi-rs/canvas';

// Sans faces only: chi_sim misread a serif face (Noto Serif CJK) far more often.
const CJK_FAMILIES = ['Noto Sans CJK SC', 'Noto Sans CJK JP', 'WenQuanYi Zen Hei', 'WenQuanYi Micro Hei', 'Droid Sans Fallback'];

/** The script a test image is drawn for: it picks the regional face (Noto Sans CJK JP for Japanese…). */
export type TestScript = 'eng' | 'chi_sim' | 'chi_tra' | 'jpn' | 'kor';

/** Faces tried in order per script: the regional Noto face first, then any CJK face with the glyphs. */
const FAMILIES: Record<TestScript, string[]> = {
  eng: ['DejaVu Sans', 'Liberation Sans', 'Noto Sans CJK SC'],
  chi_sim: CJK_FAMILIES,
  chi_tra: ['Noto Sans CJK TC', 'Noto Sans CJK HK', 'WenQuanYi Zen Hei', 'Droid Sans Fallback'],
  jpn: ['Noto Sans CJK JP', 'WenQuanYi Zen Hei', 'Droid Sans Fallback'],
  // WenQuanYi Zen Hei has Hangul as well; Noto's KR face is the one Debian installs with fonts-noto-cjk.
  kor: ['Noto Sans CJK KR', 'WenQuanYi Zen Hei', 'Droid Sans Fallback'],
};

const PACKAGES: Record<TestScript, string> = {
  eng: 'fonts-dejavu-core',
  chi_sim: 'fonts-wqy-zenhei',
  chi_tra: 'fonts-noto-cjk',
  jpn: 'fonts-noto-cjk',
  kor: 'fonts-noto-cjk',
};

/** The installed face used for `script`; throws, naming the Debian package, when none is installed. */
export function fontFor(script: TestScript): string {
  const families = new Set(GlobalFonts.families.map((f) => f.family));
  const family = FAMILIES[script].find((f) => families.has(f));
  if (!family) throw new Error(`no font for ${script} test images installed: apt-get install -y ${PACKAGES[script]}`);
  return family;
}

export interface TextImageOptions {
  script?: TestScript;
  /** Font size in pixels (CJK glyphs are ≈ 0.9 of it high). Default 48: 11.5 pt at 300 dpi, body text in a scan. */
  size?: number;
  /** Canvas size; default: the text plus a 40 px margin. */
  width?: number;
  height?: number;
  /** Pixels between baselines; default 5/3 of the size. */
  lineHeight?: number;
  /** Text colour (CSS); default black. On white always. */
  color?: string;
}

/**
 * A PNG of text lines drawn on white with a font installed on the machine (Debian's fonts-noto-cjk,
 * fonts-wqy-zenhei). Used by the OCR tests and `bench:ocr`, where the drawn text is the reference.
 */
export async function textPng(lines: string[], options: TextImageOptions = {}): Promise<Buffer> {
  const script = options.script ?? 'chi_sim';
  const family = fontFor(script);
  const size = options.size ?? 48;
  const lineHeight = options.lineHeight ?? Math.round((size * 5) / 3);
  const probe = createCanvas(1, 1).getContext('2d');
  probe.font = `${size}px "${family}"`;
  const textWidth = Math.max(...lines.map((l) => probe.measureText(l).width));
  const width = options.width ?? Math.ceil(40 + textWidth + 40);
  const height = options.height ?? 40 + lines.length * lineHeight + 20;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = options.color ?? '#000000';
  ctx.font = `${size}px "${family}"`;
  // One line centred vertically in a fixed canvas (the 320×180 case); more lines from the top.
  const top = options.height !== undefined && lines.length === 1 ? Math.round((height + size * 0.8) / 2) : 40 + size;
  lines.forEach((line, i) => ctx.fillText(line, 40, top + i * lineHeight));
  return canvas.encode('png');
}

/**
 * A PNG of Chinese text drawn with a CJK font installed on the machine (Debian's fonts-wqy-zenhei
 * or fonts-noto-cjk; `npm test` installs one). Throws, naming the package, when none is installed.
 */
export async function cjkTextPng(lines: string[]): Promise<Buffer> {
  // 48 px is 11.5 pt at 300 dpi, body text in a scan. chi_sim misreads some characters in some
  // fonts at some sizes (字 as 子 in WenQuanYi Zen Hei, 技 as 扩 in Noto Sans CJK at 72 px): the
  // tests' sentences were chosen to read right in both fonts at 40–64 px.
  return textPng(lines, { script: 'chi_sim', size: 48, lineHeight: 80 });
}
