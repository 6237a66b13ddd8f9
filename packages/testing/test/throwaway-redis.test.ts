import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { ThrowawayRedis } from '../src/index.js';

describe('ThrowawayRedis', () => {
  it('durable: what it acknowledged survives a stop and a restart on the same port; dispose removes its directory', async () => {
    const redis = await ThrowawayRedis.start({ durable: true, stdio: 'ignore' });
    try {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      client.on('error', () => undefined); // refused while it is down, on purpose
      await client.connect();
      await client.set('kept', 'yes');
      expect(await client.config('GET', 'hash-max-listpack-value')).toEqual(['hash-max-listpack-value', '1024']);
      client.disconnect();
      expect(await redis.stop()).toMatchObject({ code: 0 });
      expect(redis.running).toBe(false);
      await redis.restart();
      const again = new Redis(redis.url);
      expect(await again.get('kept')).toBe('yes');
      again.disconnect();
    } finally {
      await redis.dispose();
    }
    expect(existsSync(redis.dir)).toBe(false);
  });
});
