import type { BBox, FlowBlock, Origin } from '@readpack/reading-package';
import { ListAssembler, type ListMark } from '../docx/lists.js';
import { formatNumber } from '../docx/numbering.js';
import { child, childrenNamed, elements, intAttr, type XmlElement } from '../ooxml.js';
import { bulletOf, type BulletDefault } from './placeholders.js';

/** Where a text frame's blocks go, and what its paragraphs inherit. */
export interface FrameContext {
  origin: Origin;
  page: number;
  bbox?: BBox;
  /** The bullet a paragraph at a level shows when it sets none (from the layout and master). */
  inheritedBullet: (lvl: number) => BulletDefault | undefined;
}

/** A paragraph's text: runs, line breaks and fields (slide numbers, dates) as shown. */
export function paragraphText(p: XmlElement): string {
  let text = '';
  for (const el of elements(p)) {
    if (el.name === 'a:r' || el.name === 'a:fld') text += childrenNamed(el, 'a:t').map(textOf).join('');
    else if (el.name === 'a:br') text += '\n';
  }
  return text;
}

function textOf(el: XmlElement): string {
  return el.children.filter((c): c is string => typeof c === 'string').join('');
}

/** The whole frame as plain text, one line per paragraph (table cells, notes, titles). */
export function frameText(txBody: XmlElement | undefined): string {
  return childrenNamed(txBody, 'a:p')
    .map(paragraphText)
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/** `arabicPeriod` → `3.`, `alphaLcParenR` → `c)`, `romanUcParenBoth` → `(III)`. */
function autoNumMarker(scheme: string, n: number): string {
  const m = /^(arabic|alphaLc|alphaUc|romanLc|romanUc|circleNum|ea1|hindi|thai)[A-Za-z]*?(Period|ParenR|ParenBoth|Plain|Minus)?$/.exec(scheme);
  const format = { alphaLc: 'lowerLetter', alphaUc: 'upperLetter', romanLc: 'lowerRoman', romanUc: 'upperRoman' }[m?.[1] ?? ''] ?? 'decimal';
  const number = formatNumber(n, format);
  switch (m?.[2]) {
    case 'ParenR':
      return `${number})`;
    case 'ParenBoth':
      return `(${number})`;
    case 'Plain':
      return number;
    case 'Minus':
      return `- ${number} -`;
    default:
      return `${number}.`;
  }
}

/**
 * The paragraphs of a text frame as blocks: runs of bulleted or numbered paragraphs become one
 * list (nested by `lvl`), the others paragraphs. Auto-numbers count per level and restart after
 * a paragraph that is not numbered, as PowerPoint draws them.
 */
export function frameBlocks(txBody: XmlElement, ctx: FrameContext): FlowBlock[] {
  const out: FlowBlock[] = [];
  const place = { page: ctx.page, ...(ctx.bbox ? { bbox: ctx.bbox } : {}) };
  let list: ListAssembler | undefined;
  let counters: number[] = [];
  for (const p of childrenNamed(txBody, 'a:p')) {
    const text = paragraphText(p).replace(/[ \t]+$/gm, '');
    if (text.trim() === '') continue;
    const pPr = child(p, 'a:pPr');
    const lvl = Math.min(Math.max(intAttr(pPr?.attrs.lvl) ?? 0, 0), 8);
    const bullet = bulletOf(pPr) ?? ctx.inheritedBullet(lvl);
    if (!bullet || bullet.kind === 'none') {
      list = undefined;
      counters = [];
      out.push({ type: 'paragraph', text, origin: ctx.origin, ...place });
      continue;
    }
    const mark: ListMark = { numId: 'frame', ilvl: lvl, ordered: bullet.kind === 'autoNum' };
    if (bullet.kind === 'autoNum') {
      const n = counters[lvl] === undefined ? bullet.start : counters[lvl] + 1;
      counters[lvl] = n;
      mark.number = n;
      mark.marker = autoNumMarker(bullet.scheme, n);
    } else {
      mark.marker = bullet.char;
    }
    counters.length = lvl + 1; // a new item restarts every deeper level
    list ??= new ListAssembler(out, ctx.origin, place);
    list.add(mark, text);
  }
  return out;
}
