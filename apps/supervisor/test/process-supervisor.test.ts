import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_BACKOFF,
  ProcessSupervisor,
  restartDelay,
  type ExitEvent,
  type ProcessSpec,
  type SpawnEvent,
} from '../src/process-supervisor.js';

let dir: string;
const supervisors: ProcessSupervisor[] = [];

/** Tiny child programs; each writes `<marker>` once its signal handlers are in place. */
const SCRIPTS = {
  crash: `process.exit(3);`,
  sleeper: `require('fs').writeFileSync(process.argv[2], String(process.pid)); setInterval(() => {}, 1000);`,
  stubborn: `process.on('SIGTERM', () => {}); require('fs').writeFileSync(process.argv[2], String(process.pid)); setInterval(() => {}, 1000);`,
  // Takes a while to wind down, then records when it was done.
  slowStop: `process.on('SIGTERM', () => setTimeout(() => { require('fs').writeFileSync(process.argv[3], String(Date.now())); process.exit(0); }, 300));
    require('fs').writeFileSync(process.argv[2], String(process.pid)); setInterval(() => {}, 1000);`,
  // Records when it was asked to stop.
  recordStop: `process.on('SIGTERM', () => { require('fs').writeFileSync(process.argv[3], String(Date.now())); process.exit(0); });
    require('fs').writeFileSync(process.argv[2], String(process.pid)); setInterval(() => {}, 1000);`,
} as const;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'readpack-supervisor-test-'));
  for (const [name, source] of Object.entries(SCRIPTS)) writeFileSync(join(dir, `${name}.cjs`), source);
});

afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function supervise(options: ConstructorParameters<typeof ProcessSupervisor>[0] = {}): ProcessSupervisor {
  const supervisor = new ProcessSupervisor({
    backoff: { initialDelayMs: 40, factor: 2, maxDelayMs: 200, resetAfterMs: 60_000 },
    stopTimeoutMs: 2_000,
    ...options,
  });
  supervisors.push(supervisor);
  return supervisor;
}

function node(name: string, script: keyof typeof SCRIPTS, ...args: string[]): ProcessSpec {
  return { name, command: process.execPath, args: [join(dir, `${script}.cjs`), ...args], stdio: 'ignore' };
}

function record(supervisor: ProcessSupervisor) {
  const spawns: (SpawnEvent & { at: number })[] = [];
  const exits: (ExitEvent & { at: number })[] = [];
  supervisor.on('spawn', (e) => spawns.push({ ...e, at: Date.now() }));
  supervisor.on('exit', (e) => exits.push({ ...e, at: Date.now() }));
  return { spawns, exits };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let markerCount = 0;
function marker(): string {
  markerCount += 1;
  return join(dir, `marker-${markerCount}`);
}

describe('restartDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => restartDelay(DEFAULT_BACKOFF, n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });
});

describe('ProcessSupervisor', () => {
  it('restarts a crashing child with growing delays', async () => {
    const supervisor = supervise();
    const { spawns, exits } = record(supervisor);
    supervisor.start(node('crasher', 'crash'));
    await until(() => exits.length >= 5);

    expect(exits.slice(0, 5).map((e) => e.code)).toEqual([3, 3, 3, 3, 3]);
    expect(exits.slice(0, 5).map((e) => e.restartInMs)).toEqual([40, 80, 160, 200, 200]);
    // Each restart waited at least its delay (timers never fire early).
    for (let i = 1; i < 5; i += 1) {
      const exit = exits[i - 1];
      const spawn = spawns[i];
      expect(spawn).toBeDefined();
      expect(spawn!.at - exit!.at).toBeGreaterThanOrEqual(exit!.restartInMs! - 2);
      expect(spawn!.restarts).toBe(i);
    }
    expect(new Set(spawns.map((s) => s.pid)).size).toBe(spawns.length);
  });

  it('resets the backoff after a healthy run', async () => {
    const supervisor = supervise({ backoff: { initialDelayMs: 40, factor: 2, maxDelayMs: 200, resetAfterMs: 0 } });
    const { exits } = record(supervisor);
    supervisor.start(node('crasher', 'crash'));
    await until(() => exits.length >= 3);
    expect(exits.slice(0, 3).map((e) => e.restartInMs)).toEqual([40, 40, 40]);
  });

  it('replaces a SIGKILLed child with a new process', async () => {
    const supervisor = supervise();
    const { spawns, exits } = record(supervisor);
    const ready = marker();
    supervisor.start(node('sleeper', 'sleeper', ready));
    await until(() => spawns.length === 1 && existsSync(ready));
    const first = spawns[0]!.pid;
    expect(supervisor.pidOf('sleeper')).toBe(first);

    process.kill(first, 'SIGKILL');
    await until(() => spawns.length === 2);
    expect(exits[0]).toMatchObject({ name: 'sleeper', pid: first, code: null, signal: 'SIGKILL', restartInMs: 40 });
    const second = spawns[1]!.pid;
    expect(second).not.toBe(first);
    expect(isAlive(second)).toBe(true);
    expect(supervisor.list()).toEqual([{ name: 'sleeper', pid: second, restarts: 1, state: 'running' }]);
  });

  it('stops with SIGTERM and escalates to SIGKILL for a child that ignores it', async () => {
    const supervisor = supervise({ stopTimeoutMs: 300 });
    const { spawns, exits } = record(supervisor);
    const politeReady = marker();
    const stubbornReady = marker();
    supervisor.start(node('polite', 'sleeper', politeReady));
    supervisor.start(node('stubborn', 'stubborn', stubbornReady));
    await until(() => spawns.length === 2 && existsSync(politeReady) && existsSync(stubbornReady));

    const started = Date.now();
    await supervisor.stop();
    const took = Date.now() - started;

    const byName = Object.fromEntries(exits.map((e) => [e.name, e]));
    expect(byName.polite).toMatchObject({ signal: 'SIGTERM', restartInMs: undefined });
    expect(byName.stubborn).toMatchObject({ signal: 'SIGKILL', restartInMs: undefined });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5_000);
    for (const spawn of spawns) expect(isAlive(spawn.pid)).toBe(false);
    expect(supervisor.list().every((p) => p.state === 'stopped' && p.pid === undefined)).toBe(true);
  });

  it('stops phase by phase: a later phase is signalled only after the earlier one exited', async () => {
    const supervisor = supervise();
    const appReady = marker();
    const appDone = marker();
    const dbReady = marker();
    const dbAsked = marker();
    // Started first on purpose: the order of stop() follows phases, not start order.
    supervisor.start({ ...node('db', 'recordStop', dbReady, dbAsked), stopPhase: 1 });
    supervisor.start(node('app', 'slowStop', appReady, appDone));
    await until(() => existsSync(appReady) && existsSync(dbReady));

    await supervisor.stop();
    const appFinishedAt = Number(readFileSync(appDone, 'utf8'));
    const dbAskedAt = Number(readFileSync(dbAsked, 'utf8'));
    expect(dbAskedAt).toBeGreaterThanOrEqual(appFinishedAt);
  });

  it('does not restart anything once shutdown has started', async () => {
    const supervisor = supervise({ backoff: { initialDelayMs: 100, factor: 2, maxDelayMs: 100, resetAfterMs: 60_000 } });
    const { spawns, exits } = record(supervisor);
    const ready = marker();
    supervisor.start(node('crasher', 'crash'));
    supervisor.start(node('sleeper', 'sleeper', ready));
    // The crasher's restart is pending when stop() begins.
    await until(() => exits.length >= 1 && existsSync(ready));
    await supervisor.stop();
    // Longer than the restart delay: a restart that slipped through would show up by now.
    const spawnsAfterStop = spawns.length;
    await new Promise((r) => setTimeout(r, 300));

    expect(spawns.length).toBe(spawnsAfterStop);
    expect(supervisor.list().every((p) => p.state === 'stopped')).toBe(true);
    expect(exits.find((e) => e.name === 'sleeper')?.restartInMs).toBeUndefined();
    expect(() => supervisor.start(node('late', 'sleeper', marker()))).toThrow(/stopping/);
  });

  it('kill() ends everything at once, without restarts', async () => {
    const supervisor = supervise();
    const { spawns, exits } = record(supervisor);
    const ready = marker();
    supervisor.start(node('stubborn', 'stubborn', ready));
    await until(() => spawns.length === 1 && existsSync(ready));
    supervisor.kill();
    await until(() => exits.length === 1);
    expect(exits[0]).toMatchObject({ signal: 'SIGKILL', restartInMs: undefined });
  });

  it('reports a command that cannot be spawned and retries it', async () => {
    const supervisor = supervise();
    const { exits } = record(supervisor);
    supervisor.start({ name: 'missing', command: join(dir, 'does-not-exist'), stdio: 'ignore' });
    await until(() => exits.length >= 2);
    expect(exits[0]!.error?.message).toMatch(/ENOENT/);
    expect(exits[0]!.pid).toBeUndefined();
    expect(exits.slice(0, 2).map((e) => e.restartInMs)).toEqual([40, 80]);
  });

  it('honours restart: on-failure and never', async () => {
    const supervisor = supervise();
    const { exits } = record(supervisor);
    writeFileSync(join(dir, 'clean.cjs'), 'process.exit(0);');
    supervisor.start({ name: 'clean', command: process.execPath, args: [join(dir, 'clean.cjs')], stdio: 'ignore', restart: 'on-failure' });
    supervisor.start({ ...node('once', 'crash'), restart: 'never' });
    await until(() => exits.length >= 2);
    await new Promise((r) => setTimeout(r, 150));
    expect(exits).toHaveLength(2);
    expect(exits.every((e) => e.restartInMs === undefined)).toBe(true);
  });

  it('rejects two processes with the same name', () => {
    const supervisor = supervise();
    supervisor.start(node('twin', 'crash'));
    expect(() => supervisor.start(node('twin', 'crash'))).toThrow(/already supervised/);
  });
});
