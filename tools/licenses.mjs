#!/usr/bin/env node
// Third-party licences of what Readpack ships (the production dependencies of every workspace).
//
//   node tools/licenses.mjs check     fail on a licence Apache-2.0 cannot carry, or on a stale
//                                     THIRD_PARTY_NOTICES.txt (npm test runs this)
//   node tools/licenses.mjs notices   regenerate THIRD_PARTY_NOTICES.txt
//
// The dependency tree comes from npm itself (`npm query .prod`, Arborist: workspaces and hoisting
// handled as npm installs them); the notices with each package's licence text from
// generate-license-file (config in .glf.json). Neither is re-implemented here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NOTICES = join(ROOT, 'THIRD_PARTY_NOTICES.txt');

/** Licences an Apache-2.0 project may ship inside it (permissive; no copyleft on our code). */
const ALLOWED = new Set(['MIT', 'ISC', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0', '0BSD', 'Zlib', 'BlueOak-1.0.0', 'CC0-1.0', 'Unlicense', 'Python-2.0', 'CC-BY-4.0']);

/**
 * Packages whose metadata says too little, with what their licence file says (read by a person,
 * version-pinned so an update is looked at again), and the one accepted copyleft component.
 */
const CLARIFIED = {
  // package.json says "BSD"; its LICENSE is the 2-clause text.
  'duck@0.1.12': 'BSD-2-Clause',
};
/**
 * libvips, which sharp loads as a separate shared library: LGPL-3.0 permits shipping it beside
 * Apache-2.0 code as long as it stays a replaceable library (it is its own npm package).
 */
const LGPL_SHARED_LIBRARIES = /^@img\/sharp-libvips-/;

function licenceOf(pkg) {
  const clarified = CLARIFIED[`${pkg.name}@${pkg.version}`];
  if (clarified) return clarified;
  if (typeof pkg.license === 'string') return pkg.license;
  if (pkg.license && typeof pkg.license.type === 'string') return pkg.license.type;
  // The pre-SPDX form some old packages still use: "licenses": [{ "type": "MIT" }].
  if (Array.isArray(pkg.licenses)) return pkg.licenses.map((l) => l.type).join(' OR ');
  return undefined;
}

/** An SPDX expression we may ship: one alternative of an OR whose AND-parts are all allowed. */
function acceptable(expression) {
  return expression
    .replace(/[()]/g, '')
    .split(/\s+OR\s+/)
    .some((alternative) => alternative.split(/\s+AND\s+/).every((id) => ALLOWED.has(id.trim())));
}

async function productionPackages() {
  const { stdout } = await run('npm', ['query', '.prod'], { cwd: ROOT, maxBuffer: 64 * 1024 ** 2 });
  return JSON.parse(stdout).filter((pkg) => pkg.location && !pkg.name.startsWith('@readpack/') && pkg.name !== 'readpack');
}

async function generateNotices(output) {
  const inputs = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
  const manifests = [];
  for (const pattern of inputs) {
    const { stdout } = await run('bash', ['-c', `ls ${pattern}/package.json`], { cwd: ROOT });
    manifests.push(...stdout.trim().split('\n'));
  }
  await run(join(ROOT, 'node_modules', '.bin', 'generate-license-file'), ['--ci', '--config', join(ROOT, '.glf.json'), '--input', ...manifests, '--output', output, '--overwrite'], { cwd: ROOT, maxBuffer: 64 * 1024 ** 2 });
}

async function check() {
  const refused = [];
  const packages = await productionPackages();
  for (const pkg of packages) {
    const licence = licenceOf(pkg);
    if (licence && acceptable(licence)) continue;
    if (licence && LGPL_SHARED_LIBRARIES.test(pkg.name) && /^LGPL-3\.0(-or-later)?$/.test(licence)) continue;
    refused.push(`${pkg.name}@${pkg.version} (${licence ?? 'no licence declared'}) at ${pkg.location}`);
  }
  if (refused.length > 0) {
    console.error(`Production dependencies whose licence Readpack (Apache-2.0) cannot ship:\n  ${refused.join('\n  ')}\nReplace them, or clarify a mis-declared licence in tools/licenses.mjs after reading its licence file.`);
    process.exit(1);
  }
  const dir = mkdtempSync(join(tmpdir(), 'readpack-notices-'));
  try {
    await generateNotices(join(dir, 'notices.txt'));
    if (readFileSync(join(dir, 'notices.txt'), 'utf8') !== readFileSync(NOTICES, 'utf8')) {
      console.error('THIRD_PARTY_NOTICES.txt is out of date with the installed dependencies: run `npm run licenses:notices` and commit it.');
      process.exit(1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`licences: ${packages.length} production dependencies, all shippable under Apache-2.0; THIRD_PARTY_NOTICES.txt is current.`);
}

const command = process.argv[2];
if (command === 'check') await check();
else if (command === 'notices') await generateNotices(NOTICES);
else {
  console.error('usage: node tools/licenses.mjs check|notices');
  process.exit(2);
}
