import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '@readpack/config';
import { digestsEqual, secretDigest } from './credentials.js';

/** The one tenant of single-tenant dev mode (no keys configured). */
export const DEV_TENANT = 'default';

/** A tenant name is part of Redis keys and job payloads: short, and no separators. */
const TENANT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** At least 16 visible ASCII characters (≥ 96 bits if random base64); no spaces, no commas. */
const KEY = /^[\x21-\x2b\x2d-\x7e]{16,512}$/;

interface KeyEntry {
  digest: Buffer;
  tenant: string;
}

/**
 * API keys → tenants, from API_KEYS (`key:tenant,key:tenant`) and API_KEYS_FILE (one `key:tenant`
 * per line, `#` comments). Only SHA-256 digests of the keys are kept in memory, and a lookup
 * compares the presented key's digest with every entry in constant time, without stopping at a
 * match, so response timing says nothing about how close a guess came.
 */
export class ApiKeyRing {
  private constructor(private readonly entries: readonly KeyEntry[]) {}

  static fromConfig(tenancy: Config['tenancy']): ApiKeyRing {
    const entries: KeyEntry[] = [];
    if (tenancy.apiKeys !== undefined) {
      tenancy.apiKeys.split(',').forEach((item, index) => addEntry(entries, item, 'API_KEYS', `entry ${index + 1}`));
    }
    if (tenancy.apiKeysFile !== undefined) {
      let text: string;
      try {
        text = readFileSync(tenancy.apiKeysFile, 'utf8');
      } catch (error) {
        throw new ConfigError([{ variable: 'API_KEYS_FILE', message: `cannot read ${tenancy.apiKeysFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` }]);
      }
      text.split(/\r?\n/).forEach((line, index) => {
        const content = line.replace(/#.*$/, '').trim();
        if (content) addEntry(entries, content, 'API_KEYS_FILE', `line ${index + 1}`);
      });
      if (entries.length === 0) throw new ConfigError([{ variable: 'API_KEYS_FILE', message: 'holds no `key:tenant` line' }]);
    }
    return new ApiKeyRing(entries);
  }

  /** No keys configured: every request is the `default` tenant, unauthenticated (development only). */
  get devMode(): boolean {
    return this.entries.length === 0;
  }

  get tenantCount(): number {
    return new Set(this.entries.map((e) => e.tenant)).size;
  }

  /** The tenant of a presented key, or undefined for an unknown key. */
  tenantFor(presented: string): string | undefined {
    const digest = secretDigest(presented);
    let tenant: string | undefined;
    for (const entry of this.entries) {
      if (digestsEqual(digest, entry.digest) && tenant === undefined) tenant = entry.tenant;
    }
    return tenant;
  }
}

function addEntry(entries: KeyEntry[], raw: string, variable: string, where: string): void {
  const item = raw.trim();
  const colon = item.lastIndexOf(':');
  // Messages name the position, never the key itself: configuration errors end up in logs.
  if (colon <= 0) throw new ConfigError([{ variable, message: `${where} is not \`key:tenant\`` }]);
  const key = item.slice(0, colon);
  const tenant = item.slice(colon + 1);
  if (!KEY.test(key)) throw new ConfigError([{ variable, message: `${where}: a key needs 16–512 visible ASCII characters, no spaces or commas` }]);
  if (!TENANT.test(tenant)) throw new ConfigError([{ variable, message: `${where}: tenant names are 1–64 of A–Z a–z 0–9 _ - (starting with a letter or digit)` }]);
  const digest = secretDigest(key);
  const clash = entries.find((e) => digestsEqual(e.digest, digest));
  if (clash && clash.tenant !== tenant) throw new ConfigError([{ variable, message: `${where}: this key is already given to another tenant` }]);
  if (!clash) entries.push({ digest, tenant });
}
