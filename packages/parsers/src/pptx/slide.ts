import type { BBox, FigureBlock, FlowBlock, FurnitureBlock, Origin } from '@readpack/reading-package';
import { child, descendants, elements, path, type OfficePackage, type PicturePart, type Relationship, type XmlElement } from '../ooxml.js';
import { diagramList } from './diagram.js';
import type { ParseOptions } from '../types.js';
import { groupTransform, IDENTITY, readFrame, readingOrder, toBBox, type Transform } from './geometry.js';
import { isSubtitle, isTitle, placeholderOf, type Inheritance, type Placeholder } from './placeholders.js';
import { readSlideTable } from './table.js';
import { frameBlocks, frameText } from './text.js';

interface Shape {
  kind: 'text' | 'table' | 'picture' | 'diagram';
  el: XmlElement;
  bbox?: BBox;
  placeholder?: Placeholder;
}

export interface SlideContext {
  pkg: OfficePackage;
  origin: Origin;
  page: number;
  rels: Map<string, Relationship>;
  inheritance: Inheritance;
  limits: Required<ParseOptions>;
}

/** Group nesting beyond this is hostile, not a drawing. */
const MAX_GROUP_DEPTH = 32;
/** Slide furniture placeholders: the date and slide number are not content. */
const SKIPPED_PLACEHOLDERS = new Set(['dt', 'sldNum', 'sldImg']);

/** Every text frame, table and picture of a shape tree, groups flattened onto slide coordinates. */
function collectShapes(tree: XmlElement, t: Transform, ctx: SlideContext, out: Shape[], depth: number): void {
  if (depth > MAX_GROUP_DEPTH) return;
  for (const el of elements(tree)) {
    switch (el.name) {
      case 'p:sp': {
        const placeholder = placeholderOf(el);
        if (placeholder && SKIPPED_PLACEHOLDERS.has(placeholder.type)) break;
        if (!child(el, 'p:txBody')) break;
        const frame = readFrame(path(el, 'p:spPr', 'a:xfrm')) ?? (placeholder ? ctx.inheritance.frame(placeholder) : undefined);
        out.push({ kind: 'text', el, ...(frame ? { bbox: toBBox(frame, t) } : {}), ...(placeholder ? { placeholder } : {}) });
        break;
      }
      case 'p:pic': {
        const placeholder = placeholderOf(el);
        const frame = readFrame(path(el, 'p:spPr', 'a:xfrm')) ?? (placeholder ? ctx.inheritance.frame(placeholder) : undefined);
        out.push({ kind: 'picture', el, ...(frame ? { bbox: toBBox(frame, t) } : {}) });
        break;
      }
      case 'p:graphicFrame': {
        const frame = readFrame(child(el, 'p:xfrm'));
        const data = path(el, 'a:graphic', 'a:graphicData');
        const kind = child(data, 'a:tbl') ? 'table' : child(data, 'dgm:relIds') ? 'diagram' : undefined;
        if (kind) out.push({ kind, el, ...(frame ? { bbox: toBBox(frame, t) } : {}) });
        break;
      }
      case 'p:grpSp':
        collectShapes(el, groupTransform(t, path(el, 'p:grpSpPr', 'a:xfrm')), ctx, out, depth + 1);
        break;
      case 'mc:AlternateContent': {
        // The first choice is what a current PowerPoint shows; the fallback repeats it for older ones.
        const choice = child(el, 'mc:Choice') ?? child(el, 'mc:Fallback');
        if (choice) collectShapes(choice, t, ctx, out, depth + 1);
        break;
      }
      default:
        break;
    }
  }
}

/**
 * A slide's blocks: the title first (a level-1 heading), then every shape in reading order:
 * subtitles as level-2 headings, text frames as paragraphs and lists, tables, SmartArt (as a
 * nested list), pictures.
 * Footer and header placeholders become furniture.
 */
export async function readSlide(root: XmlElement, ctx: SlideContext, pictures: PicturePart[]): Promise<{ body: FlowBlock[]; furniture: FurnitureBlock[] }> {
  const shapes: Shape[] = [];
  const tree = path(root, 'p:cSld', 'p:spTree');
  if (tree) collectShapes(tree, IDENTITY, ctx, shapes, 0);
  const titles = shapes.filter((s) => isTitle(s.placeholder));
  const ordered = [...titles, ...readingOrder(shapes.filter((s) => !isTitle(s.placeholder)))];
  const body: FlowBlock[] = [];
  const furniture: FurnitureBlock[] = [];
  for (const shape of ordered) {
    const place = { page: ctx.page, ...(shape.bbox ? { bbox: shape.bbox } : {}) };
    const ph = shape.placeholder;
    if (shape.kind === 'text') {
      const txBody = child(shape.el, 'p:txBody');
      if (!txBody) continue;
      if (isTitle(ph) || isSubtitle(ph)) {
        const text = frameText(txBody).replace(/\s*\n\s*/g, ' ').trim();
        if (text) body.push({ type: 'heading', level: isTitle(ph) ? 1 : 2, text, origin: ctx.origin, ...place });
      } else if (ph?.type === 'ftr' || ph?.type === 'hdr') {
        const text = frameText(txBody).trim();
        if (text) furniture.push({ type: ph.type === 'ftr' ? 'page_footer' : 'page_header', text, origin: ctx.origin, ...place });
      } else {
        const inheritedBullet = (lvl: number) => (ph ? ctx.inheritance.bullet(ph, lvl) : undefined);
        body.push(...frameBlocks(txBody, { origin: ctx.origin, page: ctx.page, ...(shape.bbox ? { bbox: shape.bbox } : {}), inheritedBullet }));
      }
    } else if (shape.kind === 'table') {
      const tbl = path(shape.el, 'a:graphic', 'a:graphicData', 'a:tbl');
      if (tbl) body.push({ ...readSlideTable(tbl, ctx.origin, ctx.limits), ...place });
    } else if (shape.kind === 'diagram') {
      const rId = path(shape.el, 'a:graphic', 'a:graphicData', 'dgm:relIds')?.attrs['r:dm'];
      const part = rId === undefined ? undefined : ctx.rels.get(rId)?.target;
      const list = diagramList(part === undefined ? undefined : await ctx.pkg.xml(part), ctx.origin, place);
      if (list) body.push(list);
    } else {
      body.push(readPicture(shape.el, ctx, place, pictures));
    }
  }
  return { body, furniture };
}

/** `p:pic`: alt text from `p:cNvPr` (description, else title), bytes from the blip's part. */
function readPicture(pic: XmlElement, ctx: SlideContext, place: { page: number; bbox?: BBox }, pictures: PicturePart[]): FigureBlock {
  const cNvPr = path(pic, 'p:nvPicPr', 'p:cNvPr');
  const alt = cNvPr?.attrs.descr?.trim() || cNvPr?.attrs.title?.trim();
  const block: FigureBlock = { type: 'figure', origin: ctx.origin, ...place };
  if (alt) block.alt = alt;
  const blip = descendants(child(pic, 'p:blipFill'), 'a:blip')[0];
  const rId = blip?.attrs['r:embed'];
  const part = rId === undefined ? undefined : ctx.rels.get(rId)?.target;
  if (part !== undefined) pictures.push({ block, part });
  return block;
}

/** Speaker notes: the body placeholder of the notes slide. */
export function readNotes(root: XmlElement | undefined): string {
  const tree = path(root, 'p:cSld', 'p:spTree');
  return descendants(tree, 'p:sp')
    .filter((sp) => placeholderOf(sp)?.type === 'body')
    .map((sp) => frameText(child(sp, 'p:txBody')))
    .filter((t) => t.trim() !== '')
    .join('\n');
}
