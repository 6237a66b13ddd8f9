import { readFileSync } from 'node:fs';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '@readpack/redis';

/**
 * Loads scripts/*.lua (each documents its KEYS, ARGV and return values in its header) and
 * registers them on a connection with ioredis' defineCommand (EVALSHA, falling back to EVAL once
 * per connection). The prelude with the shared helpers is prepended to each script.
 */
export const SCRIPT_NAMES = [
  'create',
  'create-deduped',
  'start',
  'progress',
  'page-done',
  'heartbeat',
  'release',
  'annotate',
  'complete',
  'fail',
  'replay',
  'admit',
  'expired-leases',
  'forget-lease',
  'rearm-lease',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/** What every script returns: [1 applied | 0 ignored, status after the call, (some scripts) a detail]. */
export type ScriptReply = [number, string, (string | number)?];

const scriptDir = new URL('../scripts/', import.meta.url);
const prelude = readFileSync(new URL('prelude.lua', scriptDir), 'utf8');
const sources = Object.fromEntries(
  SCRIPT_NAMES.map((name) => [name, `${prelude}\n${readFileSync(new URL(`${name}.lua`, scriptDir), 'utf8')}`]),
) as Record<ScriptName, string>;

const commandName = (name: ScriptName) => `readpackJob_${name.replaceAll('-', '_')}`;

/** A script as it is sent to Redis (prelude + script), and its command name: for tests that check every script's keys. */
export function scriptSource(name: ScriptName): { command: string; lua: string } {
  return { command: commandName(name), lua: sources[name] };
}
const registered = new WeakSet<RedisClient>();

export function registerScripts(redis: RedisClient): void {
  if (registered.has(redis)) return;
  for (const name of SCRIPT_NAMES) redis.defineCommand(commandName(name), { lua: sources[name] });
  registered.add(redis);
}

type Invoke<R> = (numKeys: number, ...keysAndArgs: (string | number)[]) => R;

/** Runs a script now, with the KEYS and ARGV its header documents. */
export function runScript(redis: RedisClient, name: ScriptName, keys: string[], args: (string | number)[]): Promise<ScriptReply> {
  return runScriptRaw<ScriptReply>(redis, name, keys, args);
}

/** For the scripts whose reply is not a ScriptReply (expired-leases: a flat list). */
export function runScriptRaw<R>(redis: RedisClient, name: ScriptName, keys: string[], args: (string | number)[]): Promise<R> {
  const invoke = (redis as unknown as Record<string, Invoke<Promise<R>>>)[commandName(name)];
  if (!invoke) throw new Error(`job-state script ${name} is not registered on this connection`);
  return invoke.call(redis, keys.length, ...keys, ...args);
}

/** Queues a script call inside a MULTI (used to create a batch and its jobs in one transaction). */
export function queueScript(multi: ChainableCommander, name: ScriptName, keys: string[], args: (string | number)[]): void {
  const invoke = (multi as unknown as Record<string, Invoke<ChainableCommander>>)[commandName(name)];
  if (!invoke) throw new Error(`job-state script ${name} is not registered on this connection`);
  invoke.call(multi, keys.length, ...keys, ...args);
}
