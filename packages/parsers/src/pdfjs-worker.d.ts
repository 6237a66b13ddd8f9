/**
 * pdfjs-dist ships no types for its worker module. It is imported only for its side effect: it
 * sets `globalThis.pdfjsWorker`, which pdfjs's in-process ("fake") worker then uses.
 */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs';
