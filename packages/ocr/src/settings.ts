/**
 * How tesseract segments a page: `auto` finds blocks, columns, tables and pictures (the CLI's
 * default, psm 3); `block` takes the image as one uniform block of text (psm 6): no layout, but
 * no text lost to a layout verdict either.
 */
export type Segmentation = 'auto' | 'block';

/** Per-page settings a tesseract run takes, in tesseract's own terms. */
export interface PageSettings {
  /** Page segmentation mode as tesseract's string: '3' (auto) or '6' (block). */
  psm: '3' | '6';
  /** Resolution hint (`user_defined_dpi` / `--dpi`); undefined: tesseract estimates it from the text size. */
  dpi: number | undefined;
}

export const DEFAULT_SETTINGS: PageSettings = { psm: '3', dpi: undefined };

export function pageSettings(segmentation: Segmentation = 'auto', dpi?: number): PageSettings {
  if (dpi !== undefined && (!Number.isFinite(dpi) || dpi < 1)) throw new RangeError(`dpi must be positive, got ${dpi}`);
  return { psm: segmentation === 'block' ? '6' : '3', dpi: dpi === undefined ? undefined : Math.round(dpi) };
}

/** What one recognition returns from either engine: tesseract's TSV of the page. */
export interface TesseractOutput {
  tsv: string;
}

/** Tesseract's OSD verdict: a script name from its unicharset (`Latin`, `Han`, `Japanese`, `Hangul`…). */
export interface TesseractDetection {
  script: string;
  confidence: number;
}
