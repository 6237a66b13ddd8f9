import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { YAMLMap, parse, type Tags } from 'yaml';

/**
 * Docker Compose files read the way `docker compose -f base.yml -f override.yml` combines them,
 * for tests that cannot run Docker: YAML merge keys resolved, `!reset` honoured, and override
 * files merged into the base by the Compose specification's rules (mappings key by key; `command`,
 * `entrypoint` and `healthcheck.test` replaced; other sequences appended, volumes unique by target).
 */
export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null>;
  volumes?: (string | { type?: string; source?: string; target?: string; read_only?: boolean })[];
  ports?: unknown[];
  profiles?: string[];
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[] };
}

export interface ComposeModel {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

/** `!reset` as Compose means it: the value replaces what the files before it said (or removes it). */
const RESET = '$reset';
const resetTag: Tags[number] = {
  tag: '!reset',
  collection: 'seq',
  resolve(seq) {
    const marker = new YAMLMap();
    marker.set(RESET, seq);
    return marker;
  },
};

const REPLACED = new Set(['command', 'entrypoint', 'test']);

type Value = unknown;
const isMap = (v: Value): v is Record<string, Value> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isReset = (v: Value): v is { [RESET]: Value[] } => isMap(v) && RESET in v && Object.keys(v).length === 1;

function volumeTarget(v: Value): string {
  if (typeof v === 'string') return v.split(':')[1] ?? v;
  return isMap(v) && typeof v.target === 'string' ? v.target : JSON.stringify(v);
}

function mergeValue(key: string, base: Value, over: Value): Value {
  if (isReset(over)) return over[RESET];
  if (isMap(base) && isMap(over)) {
    const out: Record<string, Value> = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = k in out ? mergeValue(k, out[k], v) : strip(v);
    return out;
  }
  if (Array.isArray(base) && Array.isArray(over) && !REPLACED.has(key)) {
    if (key === 'volumes') {
      const targets = new Set(over.map(volumeTarget));
      return [...base.filter((v) => !targets.has(volumeTarget(v))), ...over];
    }
    return [...base, ...over.filter((v) => !base.includes(v))];
  }
  return strip(over);
}

/** A value from one file alone: `!reset` markers become their sequences. */
function strip(v: Value): Value {
  if (isReset(v)) return v[RESET];
  if (Array.isArray(v)) return v.map(strip);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x)]));
  return v;
}

function readFile(name: string): Record<string, Value> {
  const path = fileURLToPath(new URL(`../../../${name}`, import.meta.url));
  return parse(readFileSync(path, 'utf8'), { merge: true, customTags: [resetTag] }) as Record<string, Value>;
}

/** The project's compose files, combined in the order given (as `-f a -f b`). */
export function loadCompose(...files: string[]): ComposeModel {
  const [first, ...rest] = files.map(readFile);
  let merged: Value = strip(first);
  for (const file of rest) merged = mergeValue('', merged, file);
  const model = merged as { services?: Record<string, ComposeService>; volumes?: Record<string, unknown> };
  return { services: model.services ?? {}, volumes: model.volumes ?? {} };
}

export function commandLine(service: ComposeService): string {
  return Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
}

export function environment(service: ComposeService): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

export function mounts(service: ComposeService): { source: string; target: string; readOnly: boolean }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v === 'string') {
      const [source = '', target = '', mode = ''] = v.split(':');
      return { source, target, readOnly: mode.split(',').includes('ro') };
    }
    return { source: v.source ?? '', target: v.target ?? '', readOnly: v.read_only === true };
  });
}
