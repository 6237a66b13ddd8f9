/** Why a PDF cannot be opened, in the job error codes of docs/errors.md. */
export interface PdfOpenFailure {
  code: 'encrypted_document' | 'corrupt_document';
  message: string;
}

/**
 * Reads what pdfjs threw while opening a PDF (as pdfjs-dist raises it), by the exception's
 * name: the classes are not exported from pdfjs's legacy build. Undefined for anything else,
 * which the caller passes on unchanged. Text extraction and page rendering both open PDFs with
 * pdfjs and must call the same file the same thing.
 */
export function classifyPdfOpenError(err: unknown, passwordGiven: boolean): PdfOpenFailure | undefined {
  if (!(err instanceof Error)) return undefined;
  switch (err.name) {
    case 'PasswordException':
      return {
        code: 'encrypted_document',
        message: passwordGiven ? 'the PDF password is incorrect' : 'the PDF is password-protected: supply its password',
      };
    // UnknownErrorException: how pdfjs wraps any other error raised while reading the file's structure.
    case 'InvalidPDFException':
    case 'FormatError':
    case 'UnknownErrorException':
      return { code: 'corrupt_document', message: `not a readable PDF: ${err.message}` };
    default:
      return undefined;
  }
}
