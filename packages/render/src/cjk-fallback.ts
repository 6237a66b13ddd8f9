import type { NapiCanvasModule } from './pdfjs.js';

/**
 * Families that cover Chinese and Japanese, best first. `fonts-noto-cjk` (Debian) provides the
 * first ones; the others are what other distributions and fonts-wqy-* install.
 */
const CJK_SANS = [
  'Noto Sans CJK SC',
  'Noto Sans CJK JP',
  'Noto Sans CJK TC',
  'Noto Sans CJK KR',
  'Source Han Sans SC',
  'Source Han Sans',
  'WenQuanYi Zen Hei',
  'WenQuanYi Micro Hei',
  'Droid Sans Fallback',
];
const CJK_SERIF = ['Noto Serif CJK SC', 'Noto Serif CJK JP', 'Noto Serif CJK TC', 'Source Han Serif SC', 'AR PL UMing CN'];

interface FontsWithAlias {
  setAlias?: (family: string, alias: string) => void;
}

let applied: { sans?: string; serif?: string } | undefined;

/**
 * pdfjs draws a non-embedded font it has no data for (typically a CJK font such as Ryumin or
 * SimSun) with `fillText` in `"<name>", serif|sans-serif|monospace`. @napi-rs/canvas has no
 * per-glyph fallback: those generic names resolve to a Latin-only font and CJK text comes out as
 * empty boxes. Aliasing the generic names to an installed CJK family (which also has Latin glyphs)
 * fixes that for the whole process; embedded and standard fonts never go through this path.
 * Returns the family used, or undefined when no CJK font is installed (see the README).
 */
export function installCjkFallback(canvas: NapiCanvasModule): { sans?: string; serif?: string } {
  if (applied) return applied;
  const fonts = canvas.GlobalFonts;
  const installed = new Set(fonts.families.map((f) => f.family));
  const sans = CJK_SANS.find((f) => installed.has(f));
  const serif = CJK_SERIF.find((f) => installed.has(f)) ?? sans;
  const setAlias = (fonts as unknown as FontsWithAlias).setAlias?.bind(fonts);
  if (setAlias && sans && serif) {
    const generic: [string, string][] = [
      ['sans-serif', sans],
      ['monospace', sans],
      ['serif', serif],
    ];
    for (const [alias, family] of generic) {
      if (!installed.has(alias)) setAlias(family, alias);
    }
  }
  applied = { ...(sans ? { sans } : {}), ...(serif ? { serif } : {}) };
  return applied;
}
