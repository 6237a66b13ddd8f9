import type { Request } from 'express';

/**
 * The tenant a request acts for. Until API keys exist every request is the single `default`
 * tenant; the tenant is already part of every job record and payload, so isolation is a change
 * here, not a migration.
 */
export function tenantOf(_req: Request): string {
  return 'default';
}
