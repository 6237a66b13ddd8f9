import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);
let validate: ValidateFunction | undefined;

/** The published JSON Schema of the reading package (the file clients get, not a copy). */
export function packageSchema(): object {
  return JSON.parse(readFileSync(require.resolve('@readpack/reading-package/schema.json'), 'utf8')) as object;
}

function validator(): ValidateFunction {
  validate ??= new Ajv2020({ allErrors: true, strict: false }).compile(packageSchema());
  return validate;
}

/** Throws with every schema violation listed when `manifest` is not a valid version-2 package. */
export function assertValidPackage(manifest: unknown): void {
  const check = validator();
  if (check(manifest)) return;
  const errors = (check.errors ?? []).slice(0, 20).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  throw new Error(`the package does not validate against reading-package.v2.schema.json:\n${errors.join('\n')}`);
}
