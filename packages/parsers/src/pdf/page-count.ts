import { DocumentError } from '../types.js';

const PAGE = Buffer.from('/Page');
const TYPE = Buffer.from('/Type');

/**
 * Page objects written in plain view (`/Type /Page`, not `/Pages`). Objects inside compressed
 * object streams are not seen, so this is a lower bound, cheap enough to take on every file.
 */
export function visiblePageObjects(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = buf.indexOf(PAGE); at !== -1; at = buf.indexOf(PAGE, at + PAGE.length)) {
    const next = buf[at + PAGE.length];
    if (next !== undefined && /[A-Za-z0-9]/.test(String.fromCharCode(next))) continue;
    const before = buf.subarray(Math.max(0, at - 12), at);
    if (before.includes(TYPE)) count += 1;
  }
  return count;
}

/** The pages reachable through the page tree's `/Kids`, whatever its `/Count`s say (pdf-lib). */
async function pagesInTree(bytes: Uint8Array): Promise<number | undefined> {
  const { PDFDocument } = await import('pdf-lib');
  try {
    const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
    return doc.getPageCount();
  } catch {
    // A file pdf-lib cannot read: the count cannot be checked, pdfjs's reading of it stands.
    return undefined;
  }
}

/**
 * The page count to trust, checked against the page tree: pdfjs takes the root's `/Count` as is
 * when it is 1 or less (and fixes only counts that are too large), so a `/Count -1` or `0` over
 * real pages would end as an empty document. A count that is not a non-negative integer, or that
 * disagrees with the pages actually in the tree, fails `corrupt_document`. `visible` is
 * visiblePageObjects of the file; `bytes` reads the file again, only when the tree must be walked.
 */
export async function checkedPageCount(declared: number, visible: number, bytes: () => Promise<Uint8Array>): Promise<number> {
  if (!Number.isInteger(declared) || declared < 0) {
    throw new DocumentError('corrupt_document', `the PDF's page tree declares ${String(declared)} pages, which is not a page count`);
  }
  if (visible <= declared) return declared;
  const real = await pagesInTree(await bytes());
  if (real !== undefined && real !== declared) {
    throw new DocumentError('corrupt_document', `the PDF's page tree declares ${declared} pages but holds ${real}`);
  }
  return declared;
}
