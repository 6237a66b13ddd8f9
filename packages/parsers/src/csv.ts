/**
 * RFC 4180 CSV, read leniently: quoted fields may hold delimiters, line breaks and doubled quotes;
 * a quote inside an unquoted field is literal; text after a closing quote is appended; an
 * unterminated quote runs to the end of the input. Records end at CRLF, LF or CR. Completely
 * empty lines are skipped; the last line needs no line break.
 */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false; // inside quotes
  let touched = false; // the current record has content (a character, a delimiter or quotes)
  const endField = (): void => {
    row.push(field);
    field = '';
  };
  const endRecord = (): void => {
    if (touched) {
      endField();
      rows.push(row);
    }
    row = [];
    field = '';
    touched = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else field += ch;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      touched = true;
    } else if (ch === delimiter) {
      endField();
      touched = true;
    } else if (ch === '\n') {
      endRecord();
    } else if (ch === '\r') {
      if (text[i + 1] === '\n') i += 1;
      endRecord();
    } else {
      field += ch;
      touched = true;
    }
  }
  endRecord();
  return rows;
}

/**
 * The delimiter of a CSV: a comma unless the first record has no comma outside quotes but has
 * semicolons (European Excel exports) or tabs.
 */
export function sniffDelimiter(text: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch] = (counts[ch] ?? 0) + 1;
  }
  if ((counts[','] ?? 0) > 0) return ',';
  if ((counts[';'] ?? 0) > 0 && (counts[';'] ?? 0) >= (counts['\t'] ?? 0)) return ';';
  if ((counts['\t'] ?? 0) > 0) return '\t';
  return ',';
}
