import type { Config } from '@readpack/config';
import type { Logger } from '@readpack/logging';
import type { ApiKeyRing } from '../auth/api-keys.js';

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
}

/**
 * Says, at start and at a level nobody filters out, what the process is exposing. Without API
 * keys every request acts as one `default` tenant with no authentication: fine on a developer's
 * loopback (HOST's default), dangerous anywhere else. HOST is what the operator told us; we bind
 * where told, but a non-loopback bind in dev mode is logged as an error on every start.
 */
export function announceAccessMode(config: Config, keys: ApiKeyRing, logger: Logger): void {
  if (!keys.devMode) {
    logger.info('tenant authentication on', { tenants: keys.tenantCount, adminPages: config.http.adminToken || config.tenancy.adminViewerToken ? 'token' : 'disabled' });
    return;
  }
  logger.warn('DEV MODE: no API_KEYS or API_KEYS_FILE; every request acts as tenant "default" without authentication. Configure API keys before exposing this service.', {
    host: config.http.host,
  });
  if (!isLoopbackHost(config.http.host)) {
    logger.error('DEV MODE on a non-loopback address: anyone who can reach this port can upload and read every document. Set API_KEYS (or API_KEYS_FILE), or HOST=127.0.0.1.', {
      host: config.http.host,
      port: config.http.port,
    });
  }
}
