/** Longest original name kept as metadata. Busboy refuses part headers over 16 KiB anyway. */
const MAX_ORIGINAL_CHARS = 16 * 1024;
/** Longest name we store and show, in code points (most filesystems allow 255 bytes). */
const MAX_DISPLAY_CODE_POINTS = 255;

/**
 * Multer hands us the raw header value decoded as latin1; browsers and curl send UTF-8. Read it
 * as UTF-8 unless that produces replacement characters (a client that really sent latin1).
 */
function decoded(raw: string): string {
  const utf8 = Buffer.from(raw, 'latin1').toString('utf8');
  return utf8.includes('\uFFFD') ? raw : utf8;
}

/**
 * The name we store and show: no path (a client may send `../../x.pdf` or `C:\x.pdf`), no control,
 * bidi-override or zero-width characters (they disguise extensions: `exe.pdf` shown as `fdp.exe`),
 * bounded length, never empty.
 */
export function displayName(raw: string): string {
  return sanitizeFilename(decoded(raw));
}

/** displayName's rules for a name that is already a proper string (not a multipart header value). */
export function sanitizeFilename(text: string): string {
  const name = text
    .split(/[\\/]/)
    .pop()!
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .trim();
  const bounded = [...name].slice(0, MAX_DISPLAY_CODE_POINTS).join('');
  return bounded === '.' || bounded === '..' || bounded === '' ? 'upload' : bounded;
}

/** The name exactly as the client sent it (decoded, bounded): kept as metadata, never used as a path. */
export function originalName(raw: string): string {
  return decoded(raw).slice(0, MAX_ORIGINAL_CHARS);
}
