import type { BBox } from '@readpack/reading-package';
import type { OPS as PdfjsOps } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { isByteArray, isNumberList } from './arrays.js';
import { applyToPoint, isMatrix, multiply, type Matrix } from './matrix.js';

/**
 * One pass over a page's operator list that keeps the graphics state pdfjs's canvas renderer
 * would keep (CTM through save/restore/transform and form XObjects, line width, colours) and
 * reports what the graphics reader needs: where images are painted and which straight,
 * axis-aligned strokes and thin filled bars could be table rulings. Coordinates come out in
 * top-left-origin page points because the walk starts from the page viewport's transform.
 */

/** Image pixels as pdfjs hands them over (`ImageKind`: 1 = 1-bit gray, 2 = RGB, 3 = RGBA). */
export interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

export type ImageSource = { kind: 'object'; objId: string } | { kind: 'inline'; image: DecodedImage };

export interface ImageDraw {
  source: ImageSource;
  /** Maps the image's unit square to top-left page points. */
  ctm: Matrix;
}

/** A horizontal (`h`: at y = pos, from x to x) or vertical (`v`) ruling candidate. */
export interface Segment {
  orientation: 'h' | 'v';
  pos: number;
  from: number;
  to: number;
  /** Drawn thickness in points (stroke width, or the short side of a filled bar). */
  thickness: number;
}

export interface WalkResult {
  images: ImageDraw[];
  segments: Segment[];
  /** Painted curves, slanted lines and non-rectangular fills. */
  art: LineArt[];
}

export interface LineArt {
  /** Its box, clipped to the clipping path's box. */
  box: BBox;
  /** A closed outline or a filled area (a rounded frame, a blob) rather than an open curve. */
  closed: boolean;
}

/** Pdfjs's packed path sub-operators (`DrawOPS` in the worker; not exported by the API). */
const PATH_MOVE_TO = 0;
const PATH_LINE_TO = 1;
const PATH_CURVE_TO = 2;
const PATH_CLOSE = 3;

/** A filled rectangle at most this thick (points) is drawn as a rule, e.g. Excel's cell borders. */
const MAX_RULE_THICKNESS = 3;
/** Off-axis drift (points) still counted as horizontal/vertical: rounding in producers' output. */
const AXIS_TOLERANCE = 0.5;
/** Shorter pieces are glyph details or dots, not rules. */
const MIN_SEGMENT_LENGTH = 1;

/** Pdfjs's operator codes, handed in so that importing this module does not load pdfjs. */
export type OpsTable = typeof PdfjsOps;

interface PaintKinds {
  strokes: ReadonlySet<number>;
  fills: ReadonlySet<number>;
}

function paintKinds(OPS: OpsTable): PaintKinds {
  const both = [OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke];
  return { strokes: new Set([OPS.stroke, OPS.closeStroke, ...both]), fills: new Set([OPS.fill, OPS.eoFill, ...both]) };
}

interface GraphicsState {
  ctm: Matrix;
  /** Box of the clipping path (page coordinates), when one is set. */
  clip: BBox | undefined;
  lineWidth: number;
  strokeColor: string;
  fillColor: string;
}

/** White paint on (presumed) white paper shows nothing, so it draws no ruling. */
const isInvisible = (color: string): boolean => color.toLowerCase() === '#ffffff';

export function walkOperatorList(
  operatorList: { fnArray: readonly number[]; argsArray: readonly unknown[] },
  viewportTransform: readonly number[],
  OPS: OpsTable,
): WalkResult {
  const { fnArray, argsArray } = operatorList;
  const kinds = paintKinds(OPS);
  const images: ImageDraw[] = [];
  const segments: Segment[] = [];
  const art: LineArt[] = [];
  let state: GraphicsState = { ctm: multiply([1, 0, 0, 1, 0, 0], viewportTransform), clip: undefined, lineWidth: 1, strokeColor: '#000000', fillColor: '#000000' };
  const stack: GraphicsState[] = [];
  // Content of soft-mask groups only shapes transparency: nothing in it is seen as drawn.
  const groupIsMask: boolean[] = [];
  let maskDepth = 0;
  // `W n`: pdfjs emits the clip operator first, then the path it applies to.
  let clipPending = false;

  for (let i = 0; i < fnArray.length; i += 1) {
    const fn = fnArray[i];
    const args = argsArray[i];
    switch (fn) {
      case OPS.save:
        stack.push({ ...state });
        break;
      case OPS.restore:
        state = stack.pop() ?? state;
        break;
      case OPS.transform:
        if (isMatrix(args)) state.ctm = multiply(state.ctm, Array.from(args));
        break;
      case OPS.paintFormXObjectBegin: {
        stack.push({ ...state });
        const matrix = Array.isArray(args) ? args[0] : undefined;
        if (isMatrix(matrix)) state.ctm = multiply(state.ctm, Array.from(matrix));
        break;
      }
      case OPS.paintFormXObjectEnd:
        state = stack.pop() ?? state;
        break;
      case OPS.beginGroup: {
        const isMask = Array.isArray(args) && hasSoftMask(args[0]);
        groupIsMask.push(isMask);
        if (isMask) maskDepth += 1;
        break;
      }
      case OPS.endGroup:
        if (groupIsMask.pop()) maskDepth -= 1;
        break;
      case OPS.setLineWidth:
        if (Array.isArray(args) && typeof args[0] === 'number') state.lineWidth = args[0];
        break;
      case OPS.setGState:
        state.lineWidth = lineWidthFromGState(args) ?? state.lineWidth;
        break;
      case OPS.setStrokeRGBColor:
        if (Array.isArray(args) && typeof args[0] === 'string') state.strokeColor = args[0];
        break;
      case OPS.setFillRGBColor:
        if (Array.isArray(args) && typeof args[0] === 'string') state.fillColor = args[0];
        break;
      case OPS.clip:
      case OPS.eoClip:
        clipPending = true;
        break;
      case OPS.constructPath:
        if (!Array.isArray(args)) break;
        if (clipPending) {
          state.clip = intersect(state.clip, pathBox(args, state.ctm));
          clipPending = false;
        }
        if (maskDepth === 0) collectRulings(args, state, kinds, segments, art);
        break;
      case OPS.paintImageXObject:
        if (maskDepth === 0 && Array.isArray(args) && typeof args[0] === 'string') {
          images.push({ source: { kind: 'object', objId: args[0] }, ctm: state.ctm });
        }
        break;
      case OPS.paintImageXObjectRepeat:
        if (maskDepth === 0 && Array.isArray(args)) collectRepeatedImage(args, state.ctm, images);
        break;
      case OPS.paintInlineImageXObject: {
        const image = Array.isArray(args) ? args[0] : undefined;
        if (maskDepth === 0 && isDecodedImage(image)) images.push({ source: { kind: 'inline', image }, ctm: state.ctm });
        break;
      }
      // Not collected: paintInlineImageXObjectGroup (the display optimiser packs runs of small
      // inline images, under 200 px width + height, into one atlas: tiles, not figures) and the image-mask
      // operators (stencils painted in the fill colour, i.e. shapes, not pictures).
      default:
        break;
    }
  }
  return { images, segments, art };
}

function hasSoftMask(group: unknown): boolean {
  return typeof group === 'object' && group !== null && 'smask' in group && Boolean((group as { smask?: unknown }).smask);
}

function lineWidthFromGState(args: unknown): number | undefined {
  const entries = Array.isArray(args) ? args[0] : undefined;
  if (!Array.isArray(entries)) return undefined;
  let width: number | undefined;
  for (const entry of entries) {
    if (Array.isArray(entry) && entry[0] === 'LW' && typeof entry[1] === 'number') width = entry[1];
  }
  return width;
}

export function isDecodedImage(value: unknown): value is DecodedImage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<DecodedImage>;
  return typeof v.width === 'number' && typeof v.height === 'number' && typeof v.kind === 'number' && isByteArray(v.data);
}

/**
 * `[objId, scaleX, scaleY, positions]`: the display optimiser's fold of save/cm/Do/restore runs of
 * one image. `getOperatorList()` (OPLIST intent) is not optimised today; read in case it becomes so.
 */
function collectRepeatedImage(args: unknown[], ctm: Matrix, images: ImageDraw[]): void {
  const [objId, scaleX, scaleY, positions] = args;
  if (typeof objId !== 'string' || typeof scaleX !== 'number' || typeof scaleY !== 'number' || !isNumberList(positions)) return;
  for (let k = 0; k + 1 < positions.length; k += 2) {
    const x = Number(positions[k]);
    const y = Number(positions[k + 1]);
    images.push({ source: { kind: 'object', objId }, ctm: multiply(ctm, [scaleX, 0, 0, scaleY, x, y]) });
  }
}

/**
 * `[paintOp, [Float32Array path], minMax]`: pdfjs 5's packed path followed by how it is painted.
 * Straight axis-aligned edges become ruling candidates; anything else painted (curves, slanted
 * edges, non-rectangular fills) is reported as line art, which tells diagrams from tables.
 */
function collectRulings(args: unknown[], state: GraphicsState, kinds: PaintKinds, out: Segment[], art: LineArt[]): void {
  const [paintOp, paths] = args;
  if (typeof paintOp !== 'number' || !Array.isArray(paths)) return;
  const path: unknown = paths[0];
  if (!isNumberList(path)) return;
  const strokes = kinds.strokes.has(paintOp) && !isInvisible(state.strokeColor);
  const fills = kinds.fills.has(paintOp) && !isInvisible(state.fillColor);
  if (!strokes && !fills) return;
  const scale = Math.sqrt(Math.abs(state.ctm[0] * state.ctm[3] - state.ctm[1] * state.ctm[2]));
  const strokeWidth = Math.max(state.lineWidth * scale, 0.1);
  for (const subpath of subpaths(path, state.ctm)) {
    const edges = subpath.closed && subpath.points.length > 2 ? closingEdges(subpath) : subpath.edges;
    let isArt = edges.some((edge) => edge.curved || !isAxisAligned(edge.from, edge.to));
    if (strokes) {
      for (const edge of edges) if (!edge.curved) addStroke(edge.from, edge.to, strokeWidth, out);
    }
    if (fills && !isArt && !addFilledBar(subpath.points, out)) isArt = subpath.points.length > 2 && !isAxisAlignedRectangle(subpath.points);
    const drawn = isArt ? intersect(state.clip, boxOf(subpath.hull)) : undefined;
    if (drawn && drawn[2] >= drawn[0] && drawn[3] >= drawn[1]) art.push({ box: drawn, closed: subpath.closed || fills });
  }
}

type Point = [number, number];

interface Edge {
  from: Point;
  to: Point;
  curved: boolean;
}

interface Subpath {
  /** Every on-curve point, curve ends included. */
  points: Point[];
  /** The points and the curves' control points: the subpath lies within their box. */
  hull: Point[];
  edges: Edge[];
  closed: boolean;
}

function closingEdges(subpath: Subpath): Edge[] {
  const first = subpath.points[0] as Point;
  const last = subpath.points[subpath.points.length - 1] as Point;
  return [...subpath.edges, { from: last, to: first, curved: false }];
}

function isAxisAligned([x0, y0]: Point, [x1, y1]: Point): boolean {
  return Math.abs(x1 - x0) <= AXIS_TOLERANCE || Math.abs(y1 - y0) <= AXIS_TOLERANCE;
}

function isAxisAlignedRectangle(points: Point[]): boolean {
  const corners = dropClosingPoint(points);
  return corners.length === 4 && corners.every((p, k) => isAxisAligned(p, corners[(k + 1) % 4] as Point));
}

function intersect(a: BBox | undefined, b: BBox): BBox {
  if (!a) return b;
  return [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
}

/** The box of a constructPath's points through the CTM (its min/max argument is pre-CTM). */
function pathBox(args: unknown[], ctm: Matrix): BBox {
  const path: unknown = Array.isArray(args[1]) ? args[1][0] : undefined;
  const points = isNumberList(path) ? subpaths(path, ctm).flatMap((subpath) => subpath.points) : [];
  // An empty clipping path clips everything away.
  return points.length > 0 ? boxOf(points) : [0, 0, 0, 0];
}

function boxOf(points: Point[]): BBox {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The subpaths of a packed path, in page coordinates. */
function subpaths(path: ArrayLike<number>, ctm: Matrix): Subpath[] {
  const result: Subpath[] = [];
  let current: Subpath | undefined;
  const finish = () => {
    if (current && current.points.length > 1) result.push(current);
    current = undefined;
  };
  const extend = (point: Point, curved: boolean, controls: Point[] = []) => {
    if (!current) {
      current = { points: [point], hull: [point], edges: [], closed: false };
      return;
    }
    current.edges.push({ from: current.points[current.points.length - 1] as Point, to: point, curved });
    current.points.push(point);
    current.hull.push(...controls, point);
  };
  for (let k = 0; k < path.length; ) {
    const op = path[k++];
    if (op === PATH_MOVE_TO) {
      finish();
      extend(applyToPoint(ctm, path[k] ?? 0, path[k + 1] ?? 0), false);
      k += 2;
    } else if (op === PATH_LINE_TO) {
      extend(applyToPoint(ctm, path[k] ?? 0, path[k + 1] ?? 0), false);
      k += 2;
    } else if (op === PATH_CURVE_TO) {
      const controls = [applyToPoint(ctm, path[k] ?? 0, path[k + 1] ?? 0), applyToPoint(ctm, path[k + 2] ?? 0, path[k + 3] ?? 0)];
      extend(applyToPoint(ctm, path[k + 4] ?? 0, path[k + 5] ?? 0), true, controls);
      k += 6;
    } else if (op === PATH_CLOSE) {
      if (current) current.closed = true;
      finish();
    } else {
      // An unknown sub-operator means the packing changed: stop rather than misread the rest.
      break;
    }
  }
  finish();
  return result;
}

function addStroke([x0, y0]: Point, [x1, y1]: Point, thickness: number, out: Segment[]): void {
  const dx = Math.abs(x1 - x0);
  const dy = Math.abs(y1 - y0);
  if (dy <= AXIS_TOLERANCE && dx >= MIN_SEGMENT_LENGTH) {
    out.push({ orientation: 'h', pos: (y0 + y1) / 2, from: Math.min(x0, x1), to: Math.max(x0, x1), thickness });
  } else if (dx <= AXIS_TOLERANCE && dy >= MIN_SEGMENT_LENGTH) {
    out.push({ orientation: 'v', pos: (x0 + x1) / 2, from: Math.min(y0, y1), to: Math.max(y0, y1), thickness });
  }
}

/** A filled axis-aligned rectangle thin enough to read as a rule (Excel draws borders so). */
function addFilledBar(points: Point[], out: Segment[]): boolean {
  const corners = dropClosingPoint(points);
  if (corners.length !== 4) return false;
  for (let k = 0; k < 4; k += 1) {
    const [ax, ay] = corners[k] as Point;
    const [bx, by] = corners[(k + 1) % 4] as Point;
    if (Math.abs(ax - bx) > AXIS_TOLERANCE && Math.abs(ay - by) > AXIS_TOLERANCE) return false;
  }
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const y0 = Math.min(...ys);
  const y1 = Math.max(...ys);
  const width = x1 - x0;
  const height = y1 - y0;
  if (height <= MAX_RULE_THICKNESS && width >= Math.max(MIN_SEGMENT_LENGTH, 2 * height)) {
    out.push({ orientation: 'h', pos: (y0 + y1) / 2, from: x0, to: x1, thickness: Math.max(height, 0.1) });
    return true;
  }
  if (width <= MAX_RULE_THICKNESS && height >= Math.max(MIN_SEGMENT_LENGTH, 2 * width)) {
    out.push({ orientation: 'v', pos: (x0 + x1) / 2, from: y0, to: y1, thickness: Math.max(width, 0.1) });
    return true;
  }
  return false;
}

function dropClosingPoint(points: Point[]): Point[] {
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length > 1 && first && last && Math.abs(first[0] - last[0]) < 1e-3 && Math.abs(first[1] - last[1]) < 1e-3) return points.slice(0, -1);
  return points;
}
