import { ensureRedisServer } from './redis-server.js';

/**
 * `npm test`'s pretest: the suite starts a throwaway redis-server unless REDIS_URL points at one,
 * so make sure the binary exists before Jest runs (and fails in every file at once).
 */
if (!process.env.REDIS_URL) {
  const result = await ensureRedisServer({ log: (line) => console.log(line) });
  if (!result.ok) {
    console.error(`${result.reason}. Install it with:`);
    console.error(result.command);
    process.exitCode = 1;
  } else if (result.installed) {
    console.log(`installed ${result.binary}`);
  }
}
