/** The Office Open XML formats Readpack reads (what error messages call them). */
export type OfficeFormat = 'DOCX' | 'XLSX' | 'PPTX' | 'ODS' | 'EPUB';

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
