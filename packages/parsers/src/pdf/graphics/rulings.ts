import type { Segment } from './operator-walk.js';

/**
 * Rulings: the page's horizontal and vertical lines after collinear pieces are joined. Producers
 * draw a table border as one segment per cell edge (or two strokes for a double line), so the
 * lattice would see dozens of slivers where a reader sees one line.
 */
export interface Ruling {
  orientation: 'h' | 'v';
  /** y of a horizontal ruling, x of a vertical one (top-left page points). */
  pos: number;
  from: number;
  to: number;
  thickness: number;
}

/** Pieces this close across their axis are one line (half-point rounding, stroke vs. fill). */
const SAME_LINE_TOLERANCE = 1;
/** Pieces along one line with gaps up to this are joined (joints, anti-overlap trimming). */
const JOIN_GAP = 2;

export function mergeRulings(segments: readonly Segment[]): Ruling[] {
  return [...mergeOrientation(segments.filter((s) => s.orientation === 'h'), 'h'), ...mergeOrientation(segments.filter((s) => s.orientation === 'v'), 'v')];
}

function mergeOrientation(segments: Segment[], orientation: 'h' | 'v'): Ruling[] {
  const sorted = [...segments].sort((a, b) => a.pos - b.pos);
  const rulings: Ruling[] = [];
  let group: Segment[] = [];
  const flush = () => {
    if (group.length > 0) rulings.push(...joinAlong(group, orientation));
    group = [];
  };
  for (const segment of sorted) {
    const first = group[0];
    if (first && segment.pos - first.pos > SAME_LINE_TOLERANCE) flush();
    group.push(segment);
  }
  flush();
  return rulings;
}

/** Joins the pieces of one line position into maximal runs. */
function joinAlong(group: Segment[], orientation: 'h' | 'v'): Ruling[] {
  const pos = group.reduce((sum, s) => sum + s.pos, 0) / group.length;
  const byStart = [...group].sort((a, b) => a.from - b.from);
  const runs: Ruling[] = [];
  let run: Ruling | undefined;
  for (const piece of byStart) {
    if (run && piece.from <= run.to + JOIN_GAP) {
      run.to = Math.max(run.to, piece.to);
      run.thickness = Math.max(run.thickness, piece.thickness);
    } else {
      run = { orientation, pos, from: piece.from, to: piece.to, thickness: piece.thickness };
      runs.push(run);
    }
  }
  return runs;
}
