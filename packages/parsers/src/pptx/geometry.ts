import type { BBox } from '@readpack/reading-package';
import { child, intAttr, type XmlElement } from '../ooxml.js';

/** Maps a shape's EMU coordinates to the slide's: `X = sx·x + tx`, `Y = sy·y + ty`. */
export interface Transform {
  sx: number;
  sy: number;
  tx: number;
  ty: number;
}

export const IDENTITY: Transform = { sx: 1, sy: 1, tx: 0, ty: 0 };

/** A shape's frame in EMU, before any group transform. */
export interface Frame {
  x: number;
  y: number;
  cx: number;
  cy: number;
}

/** The `a:off`/`a:ext` of an `a:xfrm` (or `p:xfrm` of a graphic frame). */
export function readFrame(xfrm: XmlElement | undefined): Frame | undefined {
  const off = child(xfrm, 'a:off');
  const ext = child(xfrm, 'a:ext');
  if (!off || !ext) return undefined;
  return { x: intAttr(off.attrs.x) ?? 0, y: intAttr(off.attrs.y) ?? 0, cx: intAttr(ext.attrs.cx) ?? 0, cy: intAttr(ext.attrs.cy) ?? 0 };
}

/**
 * The transform a group applies to its children: their coordinates are in the group's child
 * space (`a:chOff`/`a:chExt`), scaled and moved onto the group's own frame (`a:off`/`a:ext`),
 * which the enclosing groups map in turn.
 */
export function groupTransform(parent: Transform, xfrm: XmlElement | undefined): Transform {
  const frame = readFrame(xfrm);
  const chOff = child(xfrm, 'a:chOff');
  const chExt = child(xfrm, 'a:chExt');
  if (!frame) return parent;
  const chX = intAttr(chOff?.attrs.x) ?? frame.x;
  const chY = intAttr(chOff?.attrs.y) ?? frame.y;
  const chCx = intAttr(chExt?.attrs.cx) ?? frame.cx;
  const chCy = intAttr(chExt?.attrs.cy) ?? frame.cy;
  // A zero-sized child space cannot be scaled from: its children keep their size.
  const sx = chCx > 0 ? frame.cx / chCx : 1;
  const sy = chCy > 0 ? frame.cy / chCy : 1;
  const local: Transform = { sx, sy, tx: frame.x - chX * sx, ty: frame.y - chY * sy };
  return { sx: parent.sx * local.sx, sy: parent.sy * local.sy, tx: parent.sx * local.tx + parent.tx, ty: parent.sy * local.ty + parent.ty };
}

/** The frame on the slide, in points, top-left origin. */
export function toBBox(frame: Frame, t: Transform): BBox {
  const x0 = t.sx * frame.x + t.tx;
  const y0 = t.sy * frame.y + t.ty;
  const x1 = t.sx * (frame.x + frame.cx) + t.tx;
  const y1 = t.sy * (frame.y + frame.cy) + t.ty;
  return [emuToPoints(Math.min(x0, x1)), emuToPoints(Math.min(y0, y1)), emuToPoints(Math.max(x0, x1)), emuToPoints(Math.max(y0, y1))];
}

/**
 * Reading order of shapes on a slide: top to bottom, and left to right among shapes side by side.
 * Shapes whose tops fall within the upper half of a band's first shape share its band (columns
 * of text boxes rarely align exactly); a band reads left to right. Shapes without a position
 * keep their document order, after the placed ones.
 */
export function readingOrder<T extends { bbox?: BBox }>(shapes: T[]): T[] {
  const placed = shapes.filter((s): s is T & { bbox: BBox } => s.bbox !== undefined).sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  const out: T[] = [];
  let band: (T & { bbox: BBox })[] = [];
  let bandLimit = -Infinity;
  const flush = (): void => {
    out.push(...band.sort((a, b) => a.bbox[0] - b.bbox[0] || a.bbox[1] - b.bbox[1]));
    band = [];
  };
  for (const shape of placed) {
    if (band.length > 0 && shape.bbox[1] >= bandLimit) flush();
    if (band.length === 0) {
      const height = shape.bbox[3] - shape.bbox[1];
      bandLimit = shape.bbox[1] + Math.max(height / 2, 1);
    }
    band.push(shape);
  }
  flush();
  out.push(...shapes.filter((s) => s.bbox === undefined));
  return out;
}

/** English Metric Units per point (914400 per inch, 72 points per inch). */
export const EMU_PER_POINT = 12700;

export function emuToPoints(emu: number): number {
  return Math.round((emu / EMU_PER_POINT) * 100) / 100;
}
