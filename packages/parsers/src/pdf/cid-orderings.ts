/**
 * Which CID ordering (Adobe's character collections: Japan1, GB1, CNS1, Korea1) a CJK font uses.
 * pdfjs does not hand a font's CIDSystemInfo to the page, so it is inferred from what it does
 * hand over: the predefined CMap's name when known (each belongs to one collection), the font's
 * name for the usual non-embedded CJK fonts, then the script of the text the font drew (kana,
 * hangul, simplified or traditional Han characters).
 */
const BY_CMAP: [RegExp, string][] = [
  [/^(?:Uni)?GB|^GBK|^GBpc|^GBT|^Adobe-GB1/i, 'GB1'],
  [/^(?:Uni)?CNS|^B5|^ETen|^ETHK|^HK|^Adobe-CNS1/i, 'CNS1'],
  [/^(?:Uni)?KS|^Adobe-Korea1/i, 'Korea1'],
  [/^(?:Uni)?JIS|^90|^83pv|^78|^Add-|^Ext-|^EUC-|^Hankaku|^Hiragana|^Katakana|^NWP-|^RKSJ|^WP-Symbol|^Roman|^[HV]$|^Adobe-Japan1/i, 'Japan1'],
];

const BY_FONT: [RegExp, string][] = [
  [/STSong|STHeiti|STKaiti|STFangsong|SimSun|SimHei|KaiTi|FangSong|AdobeSong|AdobeHeiti|NSimSun|Microsoft ?YaHei/i, 'GB1'],
  [/MSung|MHei|MingLiU|AdobeMing|DFKai|KaiU|Microsoft ?JhengHei/i, 'CNS1'],
  [/HYSMyeongJo|HYGoThic|HYRGoThic|Batang|Gulim|Dotum|Gungsuh|AdobeMyungjo|Malgun|Nanum/i, 'Korea1'],
  [/Ryumin|GothicBBB|Heisei|KozMin|KozGo|Mincho|Gothic|IPA|Hiragino|Osaka|Meiryo|YuMin|YuGo|Takao/i, 'Japan1'],
];

export function cidOrdering(cmapName: string | undefined, fontName: string | undefined, sampleText: string): string | undefined {
  if (cmapName && !/^Identity/i.test(cmapName)) {
    for (const [pattern, ordering] of BY_CMAP) if (pattern.test(cmapName)) return ordering;
  }
  const base = (fontName ?? '').replace(/^[A-Z]{6}\+/, '');
  for (const [pattern, ordering] of BY_FONT) if (pattern.test(base)) return ordering;
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(sampleText)) return 'Japan1';
  if (/\p{Script=Hangul}/u.test(sampleText)) return 'Korea1';
  const simplified = countOf(sampleText, SIMPLIFIED_ONLY);
  const traditional = countOf(sampleText, TRADITIONAL_ONLY);
  if (simplified > traditional) return 'GB1';
  if (traditional > simplified) return 'CNS1';
  return undefined;
}

/** Frequent characters written differently in the two Han traditions (same order in both). */
const SIMPLIFIED_ONLY = new Set(Array.from('们这个为国说时会来对学发经过没后还动见长问门开关从东书车马鸟鱼语读话让请谢难'));
const TRADITIONAL_ONLY = new Set(Array.from('們這個為國說時會來對學發經過沒後還動見長問門開關從東書車馬鳥魚語讀話讓請謝難'));

function countOf(text: string, chars: ReadonlySet<string>): number {
  let n = 0;
  for (const c of text) if (chars.has(c)) n += 1;
  return n;
}
