import type { Request } from 'express';
import { ConfigError, type Config } from '@readpack/config';
import type { ApiKeyRing } from '../auth/api-keys.js';
import { digestsEqual, secretDigest } from '../auth/credentials.js';

export type AdminRole = 'admin' | 'viewer';

const roles = new WeakMap<Request, AdminRole>();

export function setAdminRole(req: Request, role: AdminRole): void {
  roles.set(req, role);
}

/** The role adminGuard established; a request it did not admit has none. */
export function adminRoleOf(req: Request): AdminRole | undefined {
  return roles.get(req);
}

/** ADMIN_TOKEN and ADMIN_VIEWER_TOKEN, kept as digests and compared in constant time. */
export class AdminCredentials {
  private constructor(private readonly tokens: readonly { digest: Buffer; role: AdminRole }[]) {}

  /** Refuses tokens that are equal to each other or to a tenant key: each credential must mean one thing. */
  static fromConfig(config: Config, keys: ApiKeyRing): AdminCredentials {
    const tokens: { digest: Buffer; role: AdminRole }[] = [];
    const add = (token: string | undefined, role: AdminRole, variable: string) => {
      if (token === undefined) return;
      if (keys.tenantFor(token) !== undefined) throw new ConfigError([{ variable, message: 'must differ from every tenant API key' }]);
      const digest = secretDigest(token);
      if (tokens.some((t) => digestsEqual(t.digest, digest))) throw new ConfigError([{ variable, message: 'must differ from ADMIN_TOKEN' }]);
      tokens.push({ digest, role });
    };
    add(config.http.adminToken, 'admin', 'ADMIN_TOKEN');
    add(config.tenancy.adminViewerToken, 'viewer', 'ADMIN_VIEWER_TOKEN');
    return new AdminCredentials(tokens);
  }

  get configured(): boolean {
    return this.tokens.length > 0;
  }

  roleFor(secret: string): AdminRole | undefined {
    const digest = secretDigest(secret);
    let role: AdminRole | undefined;
    for (const token of this.tokens) {
      if (digestsEqual(digest, token.digest) && role === undefined) role = token.role;
    }
    return role;
  }
}
