import type { Request } from 'express';

const tenants = new WeakMap<Request, string>();

/** Called once per request by the authentication middleware (auth/authenticate.ts). */
export function setTenant(req: Request, tenant: string): void {
  tenants.set(req, tenant);
}

/**
 * The tenant a request acts for, as authentication established it. Every record, batch, payload
 * and manifest carries its tenant, and every read compares it with this, so another tenant's
 * resource answers exactly like one that does not exist. A route reached without authentication
 * is a wiring bug: it throws rather than guess a tenant.
 */
export function tenantOf(req: Request): string {
  const tenant = tenants.get(req);
  if (tenant === undefined) throw new Error(`no tenant was established for ${req.method} ${req.path}`);
  return tenant;
}
