import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig, type Config } from '@readpack/config';
import { bullPrefix } from '@readpack/queues';
import { createConsumerConnection } from '@readpack/redis';

export type Connection = ReturnType<typeof createConsumerConnection>;

export interface OpsContext {
  config: Config;
  connection: Connection;
  /** BullMQ's key prefix of this deployment. */
  prefix: string;
}

/**
 * The Redis the operator means: REDIS_URL if given, else the private Redis that `npm start`
 * runs for this DATA_DIR (the supervisor writes its URL to `<DATA_DIR>/redis/redis.url`).
 */
export async function resolveRedisUrl(config: Config): Promise<string> {
  if (config.redis.explicit) return config.redis.url;
  let written: string | undefined;
  try {
    written = await readFile(join(resolve(config.dataDir), 'redis', 'redis.url'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return written?.trim() || config.redis.url;
}

/** Runs an ops command with a connection to this deployment's Redis, closed afterwards. */
export async function withOps(run: (ctx: OpsContext) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const connection = createConsumerConnection({ url: await resolveRedisUrl(config) }, 'readpack-ops');
  try {
    return await run({ config, connection, prefix: bullPrefix(config.redis.prefix) });
  } finally {
    connection.disconnect();
  }
}
