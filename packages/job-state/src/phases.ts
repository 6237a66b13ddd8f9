/**
 * Where a job is in the pipeline, in order. The stored phase only moves forward (the scripts
 * compare ranks), so a late message from an earlier stage cannot make a job look younger.
 * `view_ready` is the phase of a `done` job: its reading package can be shown.
 */
export const PHASES = ['queued', 'extract', 'ocr', 'mineru', 'assemble', 'view_ready'] as const;
export type Phase = (typeof PHASES)[number];

export function phaseRank(phase: Phase): number {
  return PHASES.indexOf(phase);
}
