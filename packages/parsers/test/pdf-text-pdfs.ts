import { buildPdf, streamObject } from '@readpack/testing';

/** Hand-built text PDFs (Helvetica, WinAnsi) for the structured-extraction tests. */

export const PAGE_HEIGHT = 792;

const escape = (text: string): string => text.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * One line of text at `x` with its baseline `top` points below the page's top edge. Text is
 * written in WinAnsi: `•` and `–` are mapped to their codes.
 */
export function line(x: number, top: number, text: string, opts: { size?: number; bold?: boolean } = {}): string {
  const encoded = escape(text).replace(/•/g, '\\225').replace(/–/g, '\\226');
  return `BT /${opts.bold ? 'F2' : 'F1'} ${opts.size ?? 10} Tf ${x} ${PAGE_HEIGHT - top} Td (${encoded}) Tj ET\n`;
}

export interface OutlineEntry {
  title: string;
  page: number;
  top: number;
  children?: OutlineEntry[];
}

/** A PDF of US-letter pages with the given content streams and, optionally, an outline. */
export function textPdf(pages: string[], outline: OutlineEntry[] = []): Buffer {
  const objects: (string | Buffer)[] = [];
  const add = (body: string | Buffer): number => objects.push(body);
  add(''); // 1: catalog, written last
  add(''); // 2: page tree
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const pageRefs = pages.map((content) => {
    const stream = add(streamObject(content));
    return add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 ${PAGE_HEIGHT}] /Contents ${stream} 0 R /Resources << /Font << /F1 ${font} 0 R /F2 ${bold} 0 R >> >> >>`);
  });
  objects[1] = `<< /Type /Pages /Kids [${pageRefs.map((r) => `${r} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  let outlines = '';
  if (outline.length > 0) {
    const root = add('');
    const write = (entries: OutlineEntry[], parent: number): number[] => {
      const ids = entries.map(() => add(''));
      entries.forEach((entry, i) => {
        const kids = entry.children?.length ? write(entry.children, ids[i]!) : [];
        const links = [
          i > 0 ? `/Prev ${ids[i - 1]} 0 R` : '',
          i < ids.length - 1 ? `/Next ${ids[i + 1]} 0 R` : '',
          kids.length ? `/First ${kids[0]} 0 R /Last ${kids[kids.length - 1]} 0 R /Count ${kids.length}` : '',
        ].join(' ');
        objects[ids[i]! - 1] = `<< /Title (${escape(entry.title)}) /Parent ${parent} 0 R ${links} /Dest [${pageRefs[entry.page]} 0 R /XYZ 0 ${PAGE_HEIGHT - entry.top + 12} 0] >>`;
      });
      return ids;
    };
    const top = write(outline, root);
    objects[root - 1] = `<< /Type /Outlines /First ${top[0]} 0 R /Last ${top[top.length - 1]} 0 R /Count ${top.length} >>`;
    outlines = ` /Outlines ${root} 0 R`;
  }
  objects[0] = `<< /Type /Catalog /Pages 2 0 R${outlines} >>`;
  return buildPdf(objects);
}
