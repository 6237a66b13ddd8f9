import { describeConfig } from '@readpack/config';

/**
 * The environment of a service process a test starts: this process's own, minus every Readpack
 * variable, plus exactly `vars`. Stripping matters: the suite exports REDIS_URL (global-setup.ts),
 * and a child that silently inherited it would share the suite's Redis instead of the one the
 * test means (the supervisor test needs it unset to prove `npm start` runs its own).
 */
export function serviceEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const variable of describeConfig()) delete env[variable.name];
  return { ...env, ...vars };
}
