import type { RequestHandler } from 'express';
import type { RedisClient } from '@readpack/redis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../http/errors.js';
import { tenantOf } from '../tenant.js';

/**
 * UPLOAD_RATE_PER_MINUTE per tenant, counted in Redis (rate-limiter-flexible's atomic INCR + TTL
 * script) so that every API process, in a cluster or on other hosts, draws from the same budget.
 * One file is one upload: a request counts one before its body is read (a flood costs no disk),
 * and a batch counts its remaining files once they are known.
 */
export class UploadRateLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly perMinute: number,
  ) {
    // With the API's fail-fast connection a Redis outage rejects at once and answers 503 (errors.ts).
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:ratelimit:upload`, points: perMinute, duration: 60 });
  }

  async consume(tenant: string, uploads: number): Promise<void> {
    if (uploads <= 0) return;
    try {
      await this.limiter.consume(tenant, uploads);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError(
        429,
        'rate_limited',
        `Upload rate limit reached (${this.perMinute} files per minute); retry later.`,
        { limitPerMinute: this.perMinute, retryAfterSeconds },
        { 'Retry-After': String(retryAfterSeconds) },
      );
    }
  }

  /** Counts the request as one upload before multer reads a byte of it. */
  beforeBody(): RequestHandler {
    return async (req, _res, next) => {
      await this.consume(tenantOf(req), 1);
      next();
    };
  }
}
