export interface DecodedDataUri {
  mediaType: string;
  data: Uint8Array;
}

/** `data:[<media type>][;base64],<data>` (RFC 2397); undefined when `uri` is not one. */
export function decodeDataUri(uri: string): DecodedDataUri | undefined {
  const match = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(uri);
  if (!match) return undefined;
  const [, type = '', base64, payload = ''] = match;
  const mediaType = type.split(';')[0]?.trim().toLowerCase() || 'text/plain';
  if (base64) {
    const compact = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
    return { mediaType, data: new Uint8Array(Buffer.from(compact, 'base64')) };
  }
  try {
    return { mediaType, data: new TextEncoder().encode(decodeURIComponent(payload)) };
  } catch {
    // Malformed percent-encoding: not a data URI we can read.
    return undefined;
  }
}
