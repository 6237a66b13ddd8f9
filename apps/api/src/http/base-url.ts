import type { Request } from 'express';

/**
 * The base of every URL we hand out: PUBLIC_BASE_URL, else the current request's own origin.
 * Computed per response and never stored, so a package can never point at another environment.
 */
export function baseUrl(req: Request, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
