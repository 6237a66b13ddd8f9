import { PDFArray, PDFDocument, PDFHexString, PDFName, PDFNull, PDFNumber, StandardFonts, type PDFPage, type PDFRef } from 'pdf-lib';

/**
 * Born-digital PDFs whose truth is known because we wrote them: the fidelity tests and
 * `bench:fidelity` compare Readpack's blocks with what went in. Text is deterministic (a seeded
 * word generator), so every run measures the same documents.
 */

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her all she there ' +
  'would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these ' +
  'two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way ' +
  'well down should because each just those people how too little state good very make world still own see men work long get here between both life ' +
  'being under never day same another know while last might us great old year off come since against go came right used take three'
).split(' ');

/** A seeded generator (mulberry32): the same seed gives the same documents on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A line of words no wider than `maxWidth` points in Helvetica at `size`. */
function line(next: () => number, measure: (s: string) => number, maxWidth: number): string {
  const words: string[] = [];
  for (;;) {
    const word = WORDS[Math.floor(next() * WORDS.length)] ?? 'word';
    const candidate = [...words, word].join(' ');
    if (measure(candidate) > maxWidth) return words.join(' ') || word;
    words.push(word);
  }
}

export interface TwoColumnPdf {
  bytes: Uint8Array;
  /** Every text line in reading order: the title, then per page the left column, then the right. */
  lines: string[];
}

/**
 * A two-column article. With `interleave`, the content stream alternates left and right lines
 * (as some producers write them), so reading the stream in order mixes the columns; the right
 * reading order is column by column.
 */
export async function twoColumnPdf(options: { pages?: number; interleave?: boolean; seed?: number } = {}): Promise<TwoColumnPdf> {
  const { pages = 2, interleave = true, seed = 7 } = options;
  const next = random(seed);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const size = 10;
  const leading = 13;
  const [width, height, margin, gutter] = [595, 842, 56, 24];
  const columnWidth = (width - 2 * margin - gutter) / 2;
  const measure = (s: string) => font.widthOfTextAtSize(s, size);
  const lines: string[] = [];
  for (let p = 0; p < pages; p += 1) {
    const page = doc.addPage([width, height]);
    let top = height - margin;
    if (p === 0) {
      const title = 'A Study of Two Column Layouts';
      page.drawText(title, { x: margin, y: top - 18, size: 18, font: bold });
      lines.push(title);
      top -= 48;
    }
    const rows = Math.floor((top - margin) / leading);
    const columns: string[][] = [[], []];
    for (const column of columns) {
      for (let r = 0; r < rows; r += 1) {
        // A blank line every eight rows separates paragraphs.
        column.push(r % 8 === 7 ? '' : line(next, measure, columnWidth));
      }
    }
    const draw = (c: number, r: number) => {
      const text = columns[c]?.[r];
      if (text) page.drawText(text, { x: margin + c * (columnWidth + gutter), y: top - (r + 1) * leading, size, font });
    };
    if (interleave) {
      for (let r = 0; r < rows; r += 1) {
        draw(1, r);
        draw(0, r);
      }
    } else {
      for (let c = 0; c < 2; c += 1) for (let r = 0; r < rows; r += 1) draw(c, r);
    }
    for (const column of columns) lines.push(...column.filter((t) => t !== ''));
  }
  return { bytes: await doc.save(), lines };
}

export interface OutlinedPdf {
  bytes: Uint8Array;
  /** The outline, in document order: each heading's title and depth (1 = top). */
  headings: { title: string; level: number; page: number }[];
  /** Body paragraphs' first words, to check that body text is not taken for headings. */
  paragraphs: string[];
  /**
   * Every line drawn, page by page in reading order: the running header, the headings and body
   * lines, the page number (the truth that extracted text is compared with).
   */
  pages: string[][];
}

/**
 * A document with numbered headings at three levels (drawn larger and bold), body paragraphs,
 * a running header and a page number on every page, and a PDF outline whose entries point at
 * the headings.
 */
export async function outlinedPdf(options: { sections?: number; seed?: number } = {}): Promise<OutlinedPdf> {
  const { sections = 4, seed = 11 } = options;
  const next = random(seed);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  const [width, height, margin] = [595, 842, 72];
  const measure = (s: string) => font.widthOfTextAtSize(s, 11);
  const headings: (OutlinedPdf['headings'][number] & { y: number })[] = [];
  const paragraphs: string[] = [];
  const pages: string[][] = [];
  let page: PDFPage | undefined;
  let y = 0;
  const newPage = () => {
    // The previous page's number ends its lines: it is drawn at the bottom.
    if (pages.length > 0) pages.at(-1)!.push(String(pages.length));
    page = doc.addPage([width, height]);
    const number = doc.getPageCount();
    page.drawText('Outlined Test Document', { x: margin, y: height - 40, size: 9, font });
    page.drawText(String(number), { x: width / 2, y: 36, size: 9, font });
    pages.push(['Outlined Test Document']);
    y = height - margin;
  };
  const need = (points: number) => {
    if (!page || y - points < margin) newPage();
  };
  const heading = (title: string, level: number) => {
    const size = [0, 18, 14, 12][level] ?? 12;
    need(size * 3);
    y -= size * 1.8;
    page!.drawText(title, { x: margin, y, size, font: bold });
    pages.at(-1)!.push(title);
    headings.push({ title, level, page: doc.getPageCount() - 1, y: y + size });
    y -= size * 0.6;
  };
  const paragraph = () => {
    const rows = 3 + Math.floor(next() * 4);
    need(rows * 14 + 8);
    for (let r = 0; r < rows; r += 1) {
      const text = line(next, measure, width - 2 * margin);
      if (r === 0) paragraphs.push(text);
      y -= 14;
      page!.drawText(text, { x: margin, y, size: 11, font });
      pages.at(-1)!.push(text);
    }
    y -= 8;
  };
  for (let s = 1; s <= sections; s += 1) {
    heading(`${s} Section ${WORDS[s * 7]}`, 1);
    paragraph();
    for (let t = 1; t <= 2; t += 1) {
      heading(`${s}.${t} Topic ${WORDS[s * 5 + t]}`, 2);
      paragraph();
      if (t === 1) {
        heading(`${s}.${t}.1 Detail ${WORDS[s * 3 + t]}`, 3);
        paragraph();
      }
      paragraph();
    }
  }
  if (pages.length > 0) pages.at(-1)!.push(String(pages.length));
  addOutline(doc, headings);
  return { bytes: await doc.save(), headings: headings.map(({ title, level, page: p }) => ({ title, level, page: p })), paragraphs, pages };
}

interface OutlineNode {
  title: string;
  page: number;
  y: number;
  children: OutlineNode[];
}

/** Writes a PDF outline (bookmarks) for the headings, nested by level, each pointing at its heading. */
function addOutline(doc: PDFDocument, headings: { title: string; level: number; page: number; y: number }[]): void {
  const root: OutlineNode = { title: '', page: 0, y: 0, children: [] };
  const stack: { node: OutlineNode; level: number }[] = [{ node: root, level: 0 }];
  for (const h of headings) {
    while ((stack.at(-1)?.level ?? 0) >= h.level) stack.pop();
    const node: OutlineNode = { title: h.title, page: h.page, y: h.y, children: [] };
    stack.at(-1)!.node.children.push(node);
    stack.push({ node, level: h.level });
  }
  const context = doc.context;
  const pages = doc.getPages();
  const rootRef = context.nextRef();
  const write = (nodes: OutlineNode[], parent: PDFRef): { first: PDFRef; last: PDFRef; count: number } => {
    const refs = nodes.map(() => context.nextRef());
    let count = nodes.length;
    nodes.forEach((node, i) => {
      const dest = PDFArray.withContext(context);
      dest.push(pages[node.page]!.ref);
      dest.push(PDFName.of('XYZ'));
      dest.push(PDFNull);
      dest.push(PDFNumber.of(node.y));
      dest.push(PDFNull);
      const entry = context.obj({ Title: PDFHexString.fromText(node.title), Parent: parent, Dest: dest });
      if (i > 0) entry.set(PDFName.of('Prev'), refs[i - 1]!);
      if (i < nodes.length - 1) entry.set(PDFName.of('Next'), refs[i + 1]!);
      if (node.children.length > 0) {
        const sub = write(node.children, refs[i]!);
        entry.set(PDFName.of('First'), sub.first);
        entry.set(PDFName.of('Last'), sub.last);
        entry.set(PDFName.of('Count'), PDFNumber.of(sub.count));
        count += sub.count;
      }
      context.assign(refs[i]!, entry);
    });
    return { first: refs[0]!, last: refs.at(-1)!, count };
  };
  const top = write(root.children, rootRef);
  context.assign(rootRef, context.obj({ Type: 'Outlines', First: top.first, Last: top.last, Count: top.count }));
  doc.catalog.set(PDFName.of('Outlines'), rootRef);
}

export interface NumberedPdf {
  bytes: Uint8Array;
  /** Per page, the marker line that starts its body: `Page 7 begins here` (1-based, as printed; '' on a textless page). */
  markers: string[];
}

/**
 * A long text document for slicing tests and the large-document bench: on every page a running
 * header, a page number at the bottom, a marker line naming the page, a chapter heading every
 * ten pages and `linesPerPage` body lines (seeded words). Cheap to build at thousands of pages.
 * The `textless` pages (0-based) have only the running header and page number (marker '').
 */
export async function numberedPdf(options: { pages: number; linesPerPage?: number; seed?: number; textless?: readonly number[] }): Promise<NumberedPdf> {
  const { pages, linesPerPage = 40, seed = 3, textless = [] } = options;
  const next = random(seed);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const [width, height, margin] = [595, 842, 56];
  const measure = (s: string) => font.widthOfTextAtSize(s, 10);
  const markers: string[] = [];
  for (let p = 0; p < pages; p += 1) {
    const page = doc.addPage([width, height]);
    page.drawText('A Long Generated Document', { x: margin, y: height - 36, size: 9, font });
    page.drawText(String(p + 1), { x: width / 2, y: 30, size: 9, font });
    // A scan without its picture: the running header and page number only, for OCR to be routed to.
    if (textless.includes(p)) {
      markers.push('');
      continue;
    }
    let y = height - margin - 10;
    if (p % 10 === 0) {
      page.drawText(`Chapter ${p / 10 + 1}`, { x: margin, y, size: 16, font: bold });
      y -= 30;
    }
    const marker = `Page ${p + 1} begins here`;
    markers.push(marker);
    page.drawText(marker, { x: margin, y, size: 10, font });
    for (let l = 0; l < linesPerPage && y > margin + 24; l += 1) {
      y -= 15;
      // A blank line every nine lines separates paragraphs.
      if (l % 9 !== 8) page.drawText(line(next, measure, width - 2 * margin), { x: margin, y, size: 10, font });
    }
  }
  return { bytes: await doc.save({ useObjectStreams: false }), markers };
}
