/**
 * The pipeline's consumer stages. Each runs in processes of its own so operators scale it alone.
 * A stage is listed here only once it has a handler (apps/worker fails at boot otherwise).
 */
export const STAGES = ['extract', 'convert', 'render', 'ocr', 'mineru', 'assemble'] as const;
export type Stage = (typeof STAGES)[number];
