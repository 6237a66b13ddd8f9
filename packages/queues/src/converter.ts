import type { RedisClient } from '@readpack/redis';

/**
 * Whether LibreOffice conversion is available, as the convert consumers publish it in Redis:
 * every running consumer whose `soffice` answered at start refreshes `<prefix>:converter` (TTL
 * CONVERTER_TTL_SECONDS) every CONVERTER_REFRESH_MS. The API reads the key at upload time, so
 * every API process gives the same answer, and it follows the fleet: no consumer, no conversion
 * (the upload answers 415 `converter_unavailable` instead of waiting for a consumer that never comes).
 */
export const CONVERTER_TTL_SECONDS = 30;
export const CONVERTER_REFRESH_MS = 10_000;

export interface ConverterInfo {
  /** Converter and its version, e.g. `libreoffice` `7.4.7.2`. */
  parser: string;
  version: string;
  /** Who published it last (host:pid). */
  by: string;
}

export function converterKey(prefix: string): string {
  return `${prefix}:converter`;
}

export async function publishConverter(redis: RedisClient, prefix: string, info: ConverterInfo): Promise<void> {
  await redis.set(converterKey(prefix), JSON.stringify(info), 'EX', CONVERTER_TTL_SECONDS);
}

/** The converter some live consumer published, or undefined when conversion is off. */
export async function readConverter(redis: RedisClient, prefix: string): Promise<ConverterInfo | undefined> {
  const raw = await redis.get(converterKey(prefix));
  if (raw === null) return undefined;
  const parsed = JSON.parse(raw) as Partial<ConverterInfo>;
  return typeof parsed.parser === 'string' && typeof parsed.version === 'string' ? { parser: parsed.parser, version: parsed.version, by: String(parsed.by ?? '') } : undefined;
}
