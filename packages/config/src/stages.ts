/**
 * The pipeline's consumer stages. Each runs in processes of its own so operators scale it alone.
 * A stage is listed here only once it has a handler (apps/worker fails at boot otherwise).
 */
export const STAGES = ['extract', 'convert', 'render', 'ocr', 'mineru', 'assemble'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * What a worker process can consume: a pipeline stage, or webhook delivery (a queue of its own,
 * not a stage: it never touches a job record).
 */
export const CONSUMER_ROLES = [...STAGES, 'webhook'] as const;
export type ConsumerRole = (typeof CONSUMER_ROLES)[number];

/** A comma list of roles (`extract,assemble`), in the order given, each once; `undefined` when an entry is not a role. */
export function parseRoleList(text: string): ConsumerRole[] | undefined {
  const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0 || !entries.every((e): e is ConsumerRole => (CONSUMER_ROLES as readonly string[]).includes(e))) return undefined;
  return [...new Set(entries)];
}
