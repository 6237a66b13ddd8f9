import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go (SSRF). A callback URL names a host the tenant chose, and Readpack's
 * consumers sit inside the deployment's network: a URL resolving to loopback, a private range, a
 * link-local address (cloud metadata at 169.254.169.254), unique-local IPv6 or carrier-grade NAT
 * would let a tenant make Readpack call internal services. Those are refused unless the
 * deployment allows them (WEBHOOK_ALLOW_HOSTS: host names or CIDRs).
 *
 * The check runs twice: at upload (a clear 400 for the tenant) and on every connection a delivery
 * makes, through `guardedLookup` (the address actually dialled is the one checked, so a DNS answer
 * that changed since the upload — rebinding — cannot slip through), and again for every redirect.
 */
const DENIED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) DENIED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64]] as const) {
  DENIED.addSubnet(network, prefix, 'ipv6');
}

export class WebhookTargetError extends Error {
  override readonly name = 'WebhookTargetError';
}

/** WEBHOOK_ALLOW_HOSTS, compiled: names match the URL's host exactly; CIDRs match addresses. */
export class WebhookAllowList {
  private readonly names = new Set<string>();
  private readonly networks = new BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', bits] = entry.split('/');
      const family = isIP(address);
      if (family === 0) {
        this.names.add(entry.toLowerCase());
        continue;
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      this.networks.addSubnet(address, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), type);
    }
  }

  allowsName(host: string): boolean {
    return this.names.has(host.toLowerCase());
  }

  allowsAddress(address: string, family: 4 | 6): boolean {
    return this.networks.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** Why an address may not be dialled, or undefined when it may. */
function refusal(host: string, address: string, family: 4 | 6, allow: WebhookAllowList): string | undefined {
  if (allow.allowsName(host) || allow.allowsAddress(address, family)) return undefined;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  if (mapped) return refusal(host, mapped, 4, allow);
  if (DENIED.check(address, family === 4 ? 'ipv4' : 'ipv6')) return `${host} resolves to ${address}, a private, loopback or link-local address (allow it with WEBHOOK_ALLOW_HOSTS)`;
  return undefined;
}

function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Refuses (WebhookTargetError) a URL that is not http(s), carries credentials, or whose host
 * resolves to any address outside what webhooks may reach. Every address of the name is checked,
 * not only the first: a name with one public and one private record is refused.
 */
export async function checkWebhookTarget(raw: string, allow: WebhookAllowList): Promise<URL> {
  if (!URL.canParse(raw)) throw new WebhookTargetError('callbackUrl is not a URL');
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookTargetError('callbackUrl must be an http or https URL');
  if (url.username || url.password) throw new WebhookTargetError('callbackUrl must not carry credentials');
  const host = bare(url.hostname);
  const literal = isIP(host);
  const addresses: LookupAddress[] = literal ? [{ address: host, family: literal }] : await resolveAll(host);
  for (const { address, family } of addresses) {
    const reason = refusal(host, address, family === 6 ? 6 : 4, allow);
    if (reason) throw new WebhookTargetError(reason);
  }
  return url;
}

async function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error, addresses) => {
      if (error) reject(new WebhookTargetError(`${host} does not resolve (${error.code ?? error.message})`));
      else resolve(addresses);
    });
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request: resolves like dns.lookup, then refuses the connection when an
 * address is not allowed. Node asks for all addresses (happy eyeballs) or one; both are served.
 */
export function guardedLookup(allow: WebhookAllowList) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address, family } of addresses) {
        const reason = refusal(hostname, address, family === 6 ? 6 : 4, allow);
        if (reason) return callback(Object.assign(new WebhookTargetError(reason), { code: 'EWEBHOOKTARGET' }), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}
