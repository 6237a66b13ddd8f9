import type { RequestHandler } from 'express';
import { ApiError } from '../http/errors.js';
import { setTenant } from '../tenant.js';
import { DEV_TENANT, type ApiKeyRing } from './api-keys.js';
import { presentedSecret } from './credentials.js';

/**
 * Resolves `Authorization: Bearer <key>` to the request's tenant; a missing or unknown key is 401
 * before anything else happens (no body is read, nothing is counted). In dev mode (no keys
 * configured) every request is the `default` tenant.
 */
export function authenticate(keys: ApiKeyRing): RequestHandler {
  return (req, res, next) => {
    if (keys.devMode) {
      setTenant(req, DEV_TENANT);
      return next();
    }
    const key = presentedSecret(req, { basic: false });
    const tenant = key === undefined ? undefined : keys.tenantFor(key);
    if (tenant !== undefined) {
      setTenant(req, tenant);
      return next();
    }
    res.set('WWW-Authenticate', 'Bearer realm="readpack"');
    next(
      key === undefined
        ? new ApiError(401, 'auth_required', 'Send your API key as `Authorization: Bearer <key>`.')
        : new ApiError(401, 'invalid_api_key', 'The API key is not valid.'),
    );
  };
}
