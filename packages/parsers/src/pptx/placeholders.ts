import { child, childrenNamed, descendants, elements, path, type XmlElement } from '../ooxml.js';
import { readFrame, type Frame } from './geometry.js';

/** A shape's placeholder role (`p:ph`): its type (`title`, `body`, `subTitle`… default `obj`) and index. */
export interface Placeholder {
  type: string;
  idx?: string;
}

export function placeholderOf(shape: XmlElement): Placeholder | undefined {
  const nonVisual = elements(shape).find((e) => e.name.startsWith('p:nv'));
  const ph = path(nonVisual, 'p:nvPr', 'p:ph');
  if (!ph) return undefined;
  const placeholder: Placeholder = { type: ph.attrs.type ?? 'obj' };
  if (ph.attrs.idx !== undefined) placeholder.idx = ph.attrs.idx;
  return placeholder;
}

export const isTitle = (ph: Placeholder | undefined): boolean => ph?.type === 'title' || ph?.type === 'ctrTitle';
export const isSubtitle = (ph: Placeholder | undefined): boolean => ph?.type === 'subTitle';
/** Content placeholders, whose paragraphs are bullets unless they say otherwise. */
export const isBody = (ph: Placeholder | undefined): boolean => ph !== undefined && (ph.type === 'body' || ph.type === 'obj');

/** How a level of the master's body text style marks its paragraphs. */
export type BulletDefault = { kind: 'none' } | { kind: 'char'; char: string } | { kind: 'autoNum'; scheme: string; start: number };

export function bulletOf(pPr: XmlElement | undefined): BulletDefault | undefined {
  if (child(pPr, 'a:buNone')) return { kind: 'none' };
  const autoNum = child(pPr, 'a:buAutoNum');
  if (autoNum) return { kind: 'autoNum', scheme: autoNum.attrs.type ?? 'arabicPeriod', start: Number.parseInt(autoNum.attrs.startAt ?? '1', 10) || 1 };
  const char = child(pPr, 'a:buChar');
  if (char) return { kind: 'char', char: char.attrs.char ?? '•' };
  // A picture bullet: shown as the plain bullet it stands for.
  if (child(pPr, 'a:buBlip')) return { kind: 'char', char: '•' };
  return undefined;
}

interface LayoutPlaceholder extends Placeholder {
  frame?: Frame;
  /** `a:lstStyle` levels of the placeholder, which override the master's text style. */
  levels: Map<number, BulletDefault>;
}

function readPlaceholders(root: XmlElement | undefined): LayoutPlaceholder[] {
  const out: LayoutPlaceholder[] = [];
  for (const shape of descendants(path(root, 'p:cSld', 'p:spTree'), 'p:sp')) {
    const ph = placeholderOf(shape);
    if (!ph) continue;
    const levels = new Map<number, BulletDefault>();
    const lstStyle = path(shape, 'p:txBody', 'a:lstStyle');
    for (let lvl = 0; lvl < 9; lvl += 1) {
      const bullet = bulletOf(child(lstStyle, `a:lvl${lvl + 1}pPr`));
      if (bullet) levels.set(lvl, bullet);
    }
    out.push({ ...ph, frame: readFrame(path(shape, 'p:spPr', 'a:xfrm')), levels });
  }
  return out;
}

const family = (type: string): string => (type === 'ctrTitle' ? 'title' : type === 'obj' ? 'body' : type);

/**
 * What a slide's placeholders inherit from their layout and master: PowerPoint usually writes no
 * position for a placeholder (it sits where the layout puts it) and no bullets for a content
 * paragraph (the master's body style has them).
 */
export class Inheritance {
  private readonly layout: LayoutPlaceholder[];
  private readonly master: LayoutPlaceholder[];
  private readonly bodyStyle = new Map<number, BulletDefault>();

  constructor(layoutRoot: XmlElement | undefined, masterRoot: XmlElement | undefined) {
    this.layout = readPlaceholders(layoutRoot);
    this.master = readPlaceholders(masterRoot);
    const bodyStyle = path(masterRoot, 'p:txStyles', 'p:bodyStyle');
    for (let lvl = 0; lvl < 9; lvl += 1) {
      const bullet = bulletOf(childrenNamed(bodyStyle, `a:lvl${lvl + 1}pPr`)[0]);
      if (bullet) this.bodyStyle.set(lvl, bullet);
    }
  }

  private find(list: LayoutPlaceholder[], ph: Placeholder): LayoutPlaceholder | undefined {
    return (ph.idx !== undefined ? list.find((p) => p.idx === ph.idx) : undefined) ?? list.find((p) => family(p.type) === family(ph.type));
  }

  frame(ph: Placeholder): Frame | undefined {
    return this.find(this.layout, ph)?.frame ?? this.find(this.master, ph)?.frame;
  }

  /** The bullet a paragraph at `lvl` of this placeholder shows when it sets none itself. */
  bullet(ph: Placeholder, lvl: number): BulletDefault | undefined {
    const inherited = this.find(this.layout, ph)?.levels.get(lvl) ?? this.find(this.master, ph)?.levels.get(lvl);
    if (inherited) return inherited;
    return isBody(ph) ? this.bodyStyle.get(lvl) : undefined;
  }
}
