import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PdfOutlineEntry } from './slices.js';

/** Bounds on what a document's outline may make us resolve. */
const MAX_ENTRIES = 5000;
const MAX_DEPTH = 12;

type OutlineNode = Awaited<ReturnType<PDFDocumentProxy['getOutline']>>[number];

/** `{ num, gen }` of a page object, as pdfjs gives it in destinations. */
function isRef(value: unknown): value is { num: number; gen: number } {
  return typeof value === 'object' && value !== null && 'num' in value && 'gen' in value;
}

/**
 * The outline's entries in document order with their depth, page and the y of their destination
 * in PDF units (mapped onto the page once the page is read: mergePdfSlices). Entries whose
 * destination cannot be resolved keep no page: they are matched by title anywhere.
 */
export async function outlineEntries(doc: PDFDocumentProxy): Promise<PdfOutlineEntry[]> {
  const outline = await doc.getOutline();
  if (!outline) return [];
  const targets: PdfOutlineEntry[] = [];
  const visit = async (nodes: readonly OutlineNode[], depth: number): Promise<void> => {
    for (const node of nodes) {
      if (targets.length >= MAX_ENTRIES) return;
      const target: PdfOutlineEntry = { title: node.title, level: depth };
      const dest = typeof node.dest === 'string' ? await doc.getDestination(node.dest) : node.dest;
      if (Array.isArray(dest) && dest.length > 0) {
        const first: unknown = dest[0];
        const page = isRef(first) ? await doc.getPageIndex(first) : typeof first === 'number' ? first : undefined;
        if (page !== undefined && Number.isInteger(page) && page >= 0 && page < doc.numPages) {
          target.page = page;
          const kind: unknown = (dest[1] as { name?: unknown } | undefined)?.name;
          const y: unknown = kind === 'XYZ' ? dest[3] : kind === 'FitH' || kind === 'FitBH' ? dest[2] : undefined;
          if (typeof y === 'number' && Number.isFinite(y)) target.pdfY = y;
        }
      }
      targets.push(target);
      if (depth < MAX_DEPTH && node.items.length > 0) await visit(node.items, depth + 1);
    }
  };
  await visit(outline, 1);
  return targets;
}
