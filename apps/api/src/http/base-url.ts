import type { Request, RequestHandler } from 'express';
import { ConfigError, type Config } from '@readpack/config';
import { ApiError } from './errors.js';

/**
 * The base of every URL we hand out: PUBLIC_BASE_URL, else the current request's own origin.
 * Computed per response and never stored, so a package can never point at another environment.
 * The request's `Host` is only used once `trustedHost` let it through (or in development).
 */
export function baseUrl(req: Request, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ?? `${req.protocol}://${req.headers.host ?? 'localhost'}`;
}

/**
 * In production a forged `Host` must not choose where a client's next request (its status poll,
 * its asset downloads) goes: answers need PUBLIC_BASE_URL, or a list of the hosts to accept.
 */
export function assertPublicUrlConfigured(http: Config['http'], production: boolean): void {
  if (production && http.publicBaseUrl === undefined && http.trustedHosts.length === 0) {
    throw new ConfigError([
      { variable: 'PUBLIC_BASE_URL', message: 'required in production (NODE_ENV=production or READPACK_ENV other than development); or list the accepted Host values in TRUSTED_HOSTS' },
    ]);
  }
}

/** With TRUSTED_HOSTS set, a request naming any other host is refused before anything else happens. */
export function trustedHost(trustedHosts: readonly string[]): RequestHandler[] {
  if (trustedHosts.length === 0) return [];
  return [
    (req, _res, next) => {
      const host = req.headers.host?.toLowerCase();
      if (host !== undefined && trustedHosts.includes(host)) return next();
      next(new ApiError(400, 'untrusted_host', 'This service does not answer for that host name.'));
    },
  ];
}
