import { describe, expect, it } from '@jest/globals';
import { deploymentKeyPrefix, parseRedisUrl, RedisUrlError } from '../src/url.js';

describe('parseRedisUrl', () => {
  it('passes redis:// and rediss:// through as one server', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'standalone', url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://user:secret@cache.example.com:6380/2')).toEqual({ kind: 'standalone', url: 'rediss://user:secret@cache.example.com:6380/2' });
  });

  it('reads a Cluster seed list with credentials, default port and IPv6 hosts', () => {
    expect(parseRedisUrl('redis+cluster://ops:p%40ss@h1:7000,h2:7001,[::1]:7002,h4')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7001 },
        { host: '::1', port: 7002 },
        { host: 'h4', port: 6379 },
      ],
      username: 'ops',
      password: 'p@ss',
    });
    expect(parseRedisUrl('redis+cluster://:only-password@10.0.0.1:7000/')).toMatchObject({ username: undefined, password: 'only-password' });
  });

  it('reads a Sentinel group: master name, database, sentinel password, default port 26379', () => {
    expect(parseRedisUrl('redis+sentinel://app:pw@s1:26380,s2/3?name=mymaster&sentinelPassword=sp')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
      db: 3,
      username: 'app',
      password: 'pw',
      sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('redis+sentinel://s1:26379?name=m')).toMatchObject({ db: 0, username: undefined, password: undefined, sentinelPassword: undefined });
  });

  it.each([
    ['http://h1:6379', /expected redis:\/\//],
    ['redis+cluster://', /no host/],
    ['redis+cluster://h1:7000,,h2:7001', /"" is not host:port/],
    ['redis+cluster://h1:70000', /port out of range/],
    ['redis+cluster://h1:7000/1', /only database 0/],
    ['redis+cluster://h1:7000?name=x', /no query parameters/],
    ['redis+sentinel://s1:26379', /needs \?name=/],
    ['redis+sentinel://s1:26379/x?name=m', /database "x"/],
    ['redis+sentinel://s1:26379?name=m&db=2', /name and sentinelPassword only/],
    ['redis+cluster://u:%zz@h1:7000', /percent-encoding/],
    ['redis://h1:6379,h2:6379', /several hosts/],
    ['redis://', /not a valid URL|no host/],
  ])('refuses %s with a message that says why', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(RedisUrlError);
    expect(() => parseRedisUrl(url)).toThrow(message);
  });
});

describe('deploymentKeyPrefix', () => {
  it('makes the prefix a hash tag on a Cluster only, and keeps one the operator wrote', () => {
    expect(deploymentKeyPrefix('cluster', 'readpack')).toBe('{readpack}');
    expect(deploymentKeyPrefix('cluster', 'staging{rp}')).toBe('staging{rp}');
    expect(deploymentKeyPrefix('standalone', 'readpack')).toBe('readpack');
    expect(deploymentKeyPrefix('sentinel', 'readpack')).toBe('readpack');
  });
});
