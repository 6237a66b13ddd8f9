import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine, PartOrigin } from './types.js';

const require = createRequire(import.meta.url);
const versions = new Map<string, string>();

function readVersion(packageJsonPath: string): string {
  const parsed = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { version?: unknown };
  if (typeof parsed.version !== 'string') throw new Error(`no version in ${packageJsonPath}`);
  return parsed.version;
}

/**
 * Folder of an installed package, found the way Node resolves it (`node_modules` lookup from this
 * file). Works for packages whose `exports` map hides `./package.json` (@e965/xlsx, for one).
 */
export function packageDir(name: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  throw new Error(`package ${name} is not installed`);
}

/** The installed version of a dependency, from its package.json (cached). */
export function packageVersion(name: string): string {
  let version = versions.get(name);
  if (version === undefined) {
    version = readVersion(join(packageDir(name), 'package.json'));
    versions.set(name, version);
  }
  return version;
}

/** The version of @readpack/parsers itself (this file lives in src/ or dist/). */
export function ownVersion(): string {
  let version = versions.get('@readpack/parsers');
  if (version === undefined) {
    version = readVersion(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'));
    versions.set('@readpack/parsers', version);
  }
  return version;
}

export function libraryOrigin(name: string, engine: Engine): PartOrigin {
  return { parser: name, version: packageVersion(name), engine };
}
