import type { ThrowawayRedis } from '@readpack/testing';

export default async function globalTeardown(): Promise<void> {
  await ((globalThis as Record<string, unknown>).__readpackTestRedis as ThrowawayRedis | undefined)?.dispose();
}
