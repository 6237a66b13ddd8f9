import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { STAGES } from '@readpack/config';

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string | number> | string[];
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  ports?: unknown[];
  container_name?: string;
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string | string[] };
  stop_grace_period?: string;
}

const file = fileURLToPath(new URL('../../../docker-compose.yml', import.meta.url));
// Compose resolves `<<` merge keys; so must we, or the services look empty.
const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const SHARED_VOLUME = 'readpack-data';

function commandLine(service: Service): string {
  return Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
}

function env(service: Service): Record<string, string> {
  const e = service.environment ?? {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, String(v)]));
}

function mounts(service: Service): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v === 'string') {
      const [source = '', target = ''] = v.split(':');
      return { source, target };
    }
    return { source: v.source ?? '', target: v.target ?? '' };
  });
}

/** Compose durations like `40s`, `1m30s`, `500ms`. */
function durationMs(value: string): number {
  let total = 0;
  for (const [, n, unit] of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(n) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

const consumerServices = STAGES.map((stage) => {
  const entry = Object.entries(services).find(([, s]) => /apps\/worker\/dist\/main\.js/.test(commandLine(s)) && commandLine(s).split(' ').includes(stage));
  return { stage, name: entry?.[0], service: entry?.[1] };
});
const appServices = Object.entries(services).filter(([name]) => name !== 'redis');

describe('docker-compose.yml', () => {
  it('runs Redis 7 with AOF everysec and noeviction, with a health check and its own volume', () => {
    const redis = services.redis;
    expect(redis?.image).toMatch(/^redis:7/);
    const command = commandLine(redis!);
    expect(command).toMatch(/--appendonly yes/);
    expect(command).toMatch(/--appendfsync everysec/);
    expect(command).toMatch(/--maxmemory-policy noeviction/);
    expect(commandLine({ command: redis?.healthcheck?.test })).toMatch(/redis-cli ping/);
    expect(mounts(redis!).some((m) => m.target === '/data' && m.source in (compose.volumes ?? {}))).toBe(true);
  });

  it('runs the API cluster, published on port 3000, bound to all interfaces', () => {
    const api = services.api!;
    expect(commandLine(api)).toBe('node apps/api/dist/cluster.js');
    expect(api.build).toBeDefined();
    expect(api.ports?.map(String)).toContain('3000:3000');
    expect(env(api).HOST).toBe('0.0.0.0');
  });

  it.each(STAGES)('has a scalable service consuming the %s stage', (stage) => {
    const consumer = consumerServices.find((c) => c.stage === stage)!;
    expect(consumer.service).toBeDefined();
    expect(commandLine(consumer.service!)).toBe(`node apps/worker/dist/main.js ${stage}`);
    // Either would make `docker compose up --scale <stage>=N` fail.
    expect(consumer.service!.ports).toBeUndefined();
    expect(consumer.service!.container_name).toBeUndefined();
    expect(consumer.service!.image).toBe(services.api!.image);
  });

  it('gives every app service the shared data volume at its DATA_DIR', () => {
    expect(compose.volumes).toHaveProperty(SHARED_VOLUME);
    expect(appServices.length).toBe(1 + STAGES.length);
    for (const [name, service] of appServices) {
      const dataDir = env(service).DATA_DIR;
      expect({ name, dataDir }).toEqual({ name, dataDir: expect.stringMatching(/^\//) });
      expect({ name, mounts: mounts(service) }).toEqual({ name, mounts: expect.arrayContaining([{ source: SHARED_VOLUME, target: dataDir }]) });
    }
  });

  it('points every app service at the redis service and waits for it to be healthy', () => {
    for (const [name, service] of appServices) {
      const url = new URL(env(service).REDIS_URL ?? 'missing://');
      expect({ name, protocol: url.protocol, host: url.hostname }).toEqual({ name, protocol: 'redis:', host: 'redis' });
      expect({ name, dependsOn: service.depends_on }).toEqual({ name, dependsOn: expect.objectContaining({ redis: { condition: 'service_healthy' } }) });
    }
  });

  it('lets running jobs drain before Docker kills a container', () => {
    for (const [name, service] of appServices) {
      const graceMs = Number(env(service).SHUTDOWN_GRACE_MS ?? 30_000);
      expect({ name, stop: durationMs(service.stop_grace_period ?? '10s') > graceMs }).toEqual({ name, stop: true });
    }
  });
});
