import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '@readpack/config';

/**
 * The Redis the operator means: REDIS_URL if given, else the private Redis that `npm start`
 * runs for this DATA_DIR (the supervisor writes its URL to `<DATA_DIR>/redis/redis.url`).
 */
export async function resolveRedisUrl(config: Config): Promise<string> {
  if (config.redis.explicit) return config.redis.url;
  const written = await readFile(join(resolve(config.dataDir), 'redis', 'redis.url'), 'utf8').catch(() => undefined);
  return written?.trim() || config.redis.url;
}
