import { describe, expect, it } from '@jest/globals';
import { STAGES, describeConfig, loadConfig } from '@readpack/config';
import { commandLine, environment, loadCompose, mounts, type ComposeService } from './compose-model.js';

/**
 * docker-compose.s3.yml over docker-compose.yml (`docker compose -f docker-compose.yml -f
 * docker-compose.s3.yml up`), combined as Compose combines them since Docker cannot run here:
 * MinIO holds every byte, Redis keeps its AOF, and no two Readpack containers share a volume.
 */
const compose = loadCompose('docker-compose.yml', 'docker-compose.s3.yml');
const { services } = compose;
const isApp = (s: ComposeService) => /apps\/(api|worker)\/dist\//.test(commandLine(s));
const apps = Object.entries(services).filter(([, s]) => isApp(s));
const KNOWN = new Set(describeConfig().map((v) => v.name));
// Read by the AWS SDK's credential chain and by Node itself, not by our configuration.
const FOREIGN = /^(AWS_[A-Z_]+|NODE_ENV)$/;

/** `${NAME:-default}` → default, `${NAME:?message}` → a stand-in: what Compose substitutes. */
function substituted(env: Record<string, string>): Record<string, string> {
  const fill = (value: string) =>
    value.replace(/\$\{([A-Z_]+)(?::?([-?])([^}]*))?\}/g, (_, name: string, op: string | undefined, arg: string | undefined) =>
      op === '-' ? (arg ?? '') : `stand-in-for-${name.toLowerCase()}`,
    );
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)]));
}

describe('docker-compose.s3.yml over docker-compose.yml', () => {
  it('runs MinIO at a pinned release with a health check and its data on a named volume', () => {
    const minio = services.minio!;
    expect(minio.image).toMatch(/^minio\/minio:RELEASE\.\d{4}-/);
    expect(commandLine({ command: minio.healthcheck?.test })).toMatch(/mc ready local/);
    const data = mounts(minio).find((m) => m.target === '/data');
    expect(data && data.source in compose.volumes).toBe(true);
  });

  it('creates the bucket every app is configured with, once MinIO is healthy', () => {
    const buckets = new Set(apps.map(([, s]) => environment(s).S3_BUCKET));
    expect(buckets.size).toBe(1);
    const [bucket] = [...buckets];
    const creator = services['minio-bucket']!;
    expect(creator.depends_on).toEqual({ minio: { condition: 'service_healthy' } });
    expect(commandLine(creator)).toContain(`mc mb --ignore-existing local/${bucket}`);
  });

  it('keeps Redis with its AOF fsynced every second and noeviction', () => {
    const command = commandLine(services.redis!);
    expect(command).toMatch(/--appendonly yes/);
    expect(command).toMatch(/--appendfsync everysec/);
    expect(command).toMatch(/--maxmemory-policy noeviction/);
  });

  it('still has the API and a consumer service for every stage', () => {
    const commands = apps.map(([, s]) => commandLine(s));
    expect(commands).toContain('node apps/api/dist/cluster.js');
    for (const stage of STAGES) expect(commands).toContain(`node apps/worker/dist/main.js ${stage}`);
  });

  it.each(apps.map(([name]) => name))('%s stores everything in MinIO and shares no volume', (name) => {
    const service = services[name]!;
    const env = environment(service);
    expect(env).toMatchObject({ STORAGE: 's3', S3_FORCE_PATH_STYLE: 'true', REDIS_URL: 'redis://redis:6379' });
    const endpoint = new URL(env.S3_ENDPOINT ?? 'missing://');
    expect(endpoint.hostname in services).toBe(true);
    expect(env.AWS_ACCESS_KEY_ID).toBeTruthy();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeTruthy();
    // The only mount is the secret key, read-only; a named volume would be shared state.
    for (const mount of mounts(service)) {
      expect({ mount, named: mount.source in compose.volumes }).toEqual({ mount, named: false });
      expect(mount).toMatchObject({ target: '/data/secret.key', readOnly: true });
    }
    expect(service.depends_on).toMatchObject({ redis: { condition: 'service_healthy' }, 'minio-bucket': { condition: 'service_completed_successfully' } });
  });

  it.each(apps.map(([name]) => name))('%s names only variables Readpack reads, with values its configuration accepts', (name) => {
    const env = substituted(environment(services[name]!));
    const unknown = Object.keys(env).filter((k) => !KNOWN.has(k) && !FOREIGN.test(k));
    expect(unknown).toEqual([]);
    const config = loadConfig({ ...env, PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || 'http://localhost:3000' });
    expect(config.storage.kind).toBe('s3');
  });
});
