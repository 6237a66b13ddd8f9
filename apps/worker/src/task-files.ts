import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Piscina } from 'piscina';

/**
 * A task module's compiled file next to this one. Under Jest this file runs from src/, but a
 * worker thread does not go through Jest's transform, so tasks always load the built JavaScript
 * (`npm test` builds first).
 */
export function compiledSibling(name: string): string {
  const here = fileURLToPath(import.meta.url);
  return here.replace(/\/src\/[^/]+\.ts$/, `/dist/${name}.js`).replace(/[^/]+\.js$/, `${name}.js`);
}

/** How long a task may wait for a parser thread to start before the wait itself is a failure. */
const THREAD_START_LIMIT_MS = 60_000;

/**
 * Runs a task with a deadline that counts the task's own run time, not its wait for a thread: a
 * thread replaced after a timeout or a crash takes a moment to load its modules, and the job behind
 * the slow one must not pay for it. The task gets a MessagePort (`started`) and posts on it first.
 */
export async function runWithDeadline<T>(pool: Piscina, task: object, timeoutMs: number): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  const controller = new AbortController();
  const abort = () => controller.abort();
  let timer = setTimeout(abort, THREAD_START_LIMIT_MS + timeoutMs);
  port1.once('message', () => {
    clearTimeout(timer);
    timer = setTimeout(abort, timeoutMs);
  });
  try {
    return (await pool.run({ ...task, started: port2 }, { signal: controller.signal, transferList: [port2] })) as T;
  } finally {
    clearTimeout(timer);
    port1.close();
  }
}

/** Inside a task: tell the pool the task is running now (see runWithDeadline). */
export function signalStarted(started: MessagePort | undefined): void {
  started?.postMessage('started');
  started?.close();
}
