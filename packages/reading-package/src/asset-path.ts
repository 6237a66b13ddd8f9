/**
 * Root-relative path of an asset as the API serves it (`GET /api/assets/:assetId`). The stored
 * Markdown links to assets this way; the API prefixes the current base URL when it answers, so
 * no stored link is bound to a host.
 */
export function assetPath(packageId: string, sha256: string): string {
  return `/api/assets/${packageId}.${sha256}`;
}
