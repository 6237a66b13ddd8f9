/**
 * What an extract job that assembled its document in place returns (stages/extract.ts; BullMQ
 * keeps it as the job's return value): the document's pages, which the consumer's metrics count
 * as assemble's (metrics.ts). A module of its own: the metrics of every consumer read it, and
 * only the extract consumer may load the parsers.
 */
export interface AssembledInPlace {
  assembledInPlace: true;
  pages: number;
}

export function isAssembledInPlace(value: unknown): value is AssembledInPlace {
  if (typeof value !== 'object' || value === null) return false;
  const { assembledInPlace, pages } = value as Partial<AssembledInPlace>;
  return assembledInPlace === true && typeof pages === 'number';
}
