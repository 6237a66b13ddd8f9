/**
 * REDIS_URL in its three shapes. ioredis takes a `redis://` URL as it is, but has no URL syntax of
 * its own for a Cluster seed list or a Sentinel group, so those two are parsed here into the
 * options its `Cluster` class and `sentinels`/`name` options take. No ioredis import: the config
 * package validates REDIS_URL with this module at start.
 */
export interface RedisEndpoint {
  host: string;
  port: number;
}

export interface RedisCredentials {
  username: string | undefined;
  password: string | undefined;
}

export type RedisTarget =
  | { kind: 'standalone'; url: string }
  | ({ kind: 'cluster'; nodes: RedisEndpoint[] } & RedisCredentials)
  | ({ kind: 'sentinel'; sentinels: RedisEndpoint[]; name: string; db: number; sentinelPassword: string | undefined } & RedisCredentials);

export type RedisKind = RedisTarget['kind'];

/** REDIS_URL is not one of the accepted shapes; the message says which part is wrong. */
export class RedisUrlError extends Error {
  override readonly name = 'RedisUrlError';
}

const DEFAULT_PORT = { cluster: 6379, sentinel: 26379 } as const;
const MULTI_HOST = /^(redis\+cluster|redis\+sentinel):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?$/;

export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return parseStandalone(url);
  const match = MULTI_HOST.exec(url);
  if (!match) {
    throw new RedisUrlError('expected redis://, rediss://, redis+cluster://host:port,host:port or redis+sentinel://host:port,host:port?name=<master>');
  }
  const [, scheme = '', userInfo, hostList = '', path = '', query = ''] = match;
  const kind = scheme === 'redis+cluster' ? 'cluster' : 'sentinel';
  const endpoints = parseHostList(hostList, DEFAULT_PORT[kind]);
  const credentials = parseUserInfo(userInfo);
  const params = new URLSearchParams(query);
  if (kind === 'cluster') {
    if (path !== '' && path !== '/') throw new RedisUrlError('a Redis Cluster has only database 0: remove the path');
    const unknown = [...params.keys()];
    if (unknown.length > 0) throw new RedisUrlError(`redis+cluster:// takes no query parameters (got ${unknown.join(', ')})`);
    return { kind, nodes: endpoints, ...credentials };
  }
  const name = params.get('name');
  if (!name) throw new RedisUrlError('redis+sentinel:// needs ?name=<master group name>');
  const unknown = [...params.keys()].filter((key) => key !== 'name' && key !== 'sentinelPassword');
  if (unknown.length > 0) throw new RedisUrlError(`redis+sentinel:// takes name and sentinelPassword only (got ${unknown.join(', ')})`);
  return { kind, sentinels: endpoints, name, db: parseDb(path), sentinelPassword: params.get('sentinelPassword') ?? undefined, ...credentials };
}

/**
 * The key prefix a deployment really uses. On a Cluster every Readpack key and BullMQ queue must
 * share one hash slot (scripts touch several keys, flows span queues; docs/redis-keys.md), so the
 * prefix becomes a hash tag unless it already carries one. Standalone and Sentinel keep the name.
 */
export function deploymentKeyPrefix(kind: RedisKind, prefix: string): string {
  if (kind !== 'cluster' || /\{[^{}]+\}/.test(prefix)) return prefix;
  return `{${prefix}}`;
}

function parseStandalone(url: string): RedisTarget {
  if (/^rediss?:\/\/[^/?#]*,/.test(url)) throw new RedisUrlError('several hosts: use redis+cluster:// or redis+sentinel://');
  if (!URL.canParse(url)) throw new RedisUrlError('not a valid URL');
  const parsed = new URL(url);
  if (parsed.hostname === '') throw new RedisUrlError('no host');
  parseDb(parsed.pathname);
  return { kind: 'standalone', url };
}

function parseHostList(list: string, defaultPort: number): RedisEndpoint[] {
  if (list === '') throw new RedisUrlError('no host');
  return list.split(',').map((item) => {
    const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(item);
    const plain = /^([A-Za-z0-9.-]+)(?::(\d+))?$/.exec(item);
    const found = bracketed ?? plain;
    if (!found?.[1]) throw new RedisUrlError(`"${item}" is not host:port`);
    const port = found[2] === undefined ? defaultPort : Number(found[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new RedisUrlError(`"${item}": port out of range`);
    return { host: found[1], port };
  });
}

function parseUserInfo(userInfo: string | undefined): RedisCredentials {
  if (userInfo === undefined || userInfo === '') return { username: undefined, password: undefined };
  const colon = userInfo.indexOf(':');
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new RedisUrlError('user or password is not valid percent-encoding');
    }
  };
  if (colon < 0) return { username: decode(userInfo) || undefined, password: undefined };
  return { username: decode(userInfo.slice(0, colon)) || undefined, password: decode(userInfo.slice(colon + 1)) || undefined };
}

function parseDb(path: string): number {
  const db = path.replace(/^\//, '');
  if (db === '') return 0;
  if (!/^\d{1,2}$/.test(db)) throw new RedisUrlError(`database "${db}" is not a number`);
  return Number(db);
}
