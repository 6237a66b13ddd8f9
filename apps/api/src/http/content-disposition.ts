/**
 * A Content-Disposition value that no filename can break out of: an ASCII fallback with every
 * quote, backslash, percent sign and non-printable character replaced, plus the exact name
 * in RFC 5987 `filename*` (UTF-8, percent-encoded), which every current browser prefers.
 */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
