import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '@readpack/testing';

/** Debian's chromium (apps/supervisor/src/system-packages.ts installs it for `npm test`); never a downloaded build. */
export const CHROMIUM = '/usr/bin/chromium';

export const ARTIFACTS_DIR = join(repoRoot(), 'test-artifacts', 'web');

/**
 * A fresh headless Chromium. Playwright's `launch` gives every browser a new, empty temporary
 * profile (user-data-dir) and removes it on close; the flags keep it off the network and quiet.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (npm test's pretest installs it as root)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * The web app's build. `npm test`'s pretest builds it; a test file run alone builds it once here
 * so it never tests a missing or half-made dist.
 */
export function ensureWebBuild(): void {
  const root = repoRoot();
  if (existsSync(join(root, 'apps', 'web', 'dist', 'index.html'))) return;
  execFileSync('npm', ['run', 'build', '--workspace', '@readpack/web'], { cwd: root, stdio: 'inherit' });
}

/** Screenshots of an earlier run would pass for this one's: start each run with none. */
export function clearArtifacts(): void {
  rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
}

/** Full-page screenshots are the test's record of what a person would have seen at each step. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}
