import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@readpack/testing';
import { ConfigError, loadConfig, renderConfigTable } from '../src/index.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config.http).toMatchObject({ port: 3000, host: '127.0.0.1', apiInstances: 1 });
    expect(config.redis).toMatchObject({ url: 'redis://127.0.0.1:6379', explicit: false, prefix: 'readpack' });
    expect(config.ttl.resultSeconds).toBe(86_400);
  });

  it('names every bad variable at start', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'http://x', MAX_UPLOAD_BYTES: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(variables).toEqual(['MAX_UPLOAD_BYTES', 'PORT', 'REDIS_URL']);
    expect((error as ConfigError).message).toContain('PORT');
  });

  it('convert: one consumer unless told (npm start turns an unset count into 0 without LibreOffice), concurrency fixed at 1', () => {
    expect(loadConfig({}).stages.convert).toEqual({ concurrency: 1, consumers: 1 });
    expect(loadConfig({}).convert).toEqual({ consumersExplicit: false, timeoutMs: 120_000, sofficePath: undefined });
    expect(loadConfig({ CONVERT_CONSUMERS: '0' }).convert.consumersExplicit).toBe(true);
    expect(loadConfig({ CONVERT_CONSUMERS: '0' }).stages.convert.consumers).toBe(0);
    expect(() => loadConfig({ CONVERT_CONCURRENCY: '2' })).toThrow(ConfigError);
  });

  it('OCR: as many pages at once as the machine has cores unless told, one warm worker kept (never more than the pages at once), 30 s idle', () => {
    const config = loadConfig({});
    expect(config.stages.ocr.concurrency).toBe(Math.min(availableParallelism(), 64));
    expect(config.ocr).toMatchObject({ warmWorkers: 1, workerIdleMs: 30_000 });
    expect(loadConfig({ OCR_CONCURRENCY: '3' }).stages.ocr.concurrency).toBe(3);
    expect(loadConfig({ OCR_CONCURRENCY: '2', OCR_WARM_WORKERS: '5' }).ocr.warmWorkers).toBe(2);
    expect(loadConfig({ OCR_WARM_WORKERS: '0', OCR_WORKER_IDLE_MS: '250' }).ocr).toMatchObject({ warmWorkers: 0, workerIdleMs: 250 });
    expect(() => loadConfig({ OCR_CONCURRENCY: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ OCR_WORKER_IDLE_MS: '10' })).toThrow(ConfigError);
  });

  it('READPACK_STAGES: a comma list of stages (and webhook), in order, each once; anything else is a ConfigError naming it', () => {
    expect(loadConfig({}).workerStages).toBeUndefined();
    expect(loadConfig({ READPACK_STAGES: 'extract, assemble,extract,webhook' }).workerStages).toEqual(['extract', 'assemble', 'webhook']);
    for (const bad of ['extract,nope', ',', 'Extract']) {
      let error: unknown;
      try {
        loadConfig({ READPACK_STAGES: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.variable)).toEqual(['READPACK_STAGES']);
    }
  });

  it('SHARED_PROCESS_STAGES: every role but OCR by default', () => {
    expect(loadConfig({}).sharedProcessStages).toEqual(['extract', 'convert', 'render', 'mineru', 'assemble', 'webhook']);
    expect(loadConfig({ SHARED_PROCESS_STAGES: 'extract,assemble' }).sharedProcessStages).toEqual(['extract', 'assemble']);
    expect(() => loadConfig({ SHARED_PROCESS_STAGES: 'extract,pdf' })).toThrow(ConfigError);
  });

  it('mineru consumers follow MINERU_URL unless MINERU_CONSUMERS is given', () => {
    expect(loadConfig({}).stages.mineru.consumers).toBe(0);
    expect(loadConfig({ MINERU_URL: 'http://mineru:8000' }).stages.mineru.consumers).toBe(1);
    expect(loadConfig({ MINERU_URL: 'http://mineru:8000', MINERU_CONSUMERS: '3' }).stages.mineru.consumers).toBe(3);
    expect(loadConfig({ MINERU_CONSUMERS: '2' }).mineru.consumersExplicit).toBe(true);
    expect(loadConfig({}).mineru.consumersExplicit).toBe(false);
  });

  it('accepts a Cluster or Sentinel REDIS_URL, and hash-tags the prefix on a Cluster', () => {
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001' }).redis).toMatchObject({ kind: 'cluster', explicit: true, prefix: '{readpack}' });
    expect(loadConfig({ REDIS_URL: 'redis+cluster://127.0.0.1:7000', READPACK_PREFIX: 'eu{rp}' }).redis.prefix).toBe('eu{rp}');
    expect(loadConfig({ REDIS_URL: 'redis+sentinel://127.0.0.1:26379?name=mymaster' }).redis).toMatchObject({ kind: 'sentinel', prefix: 'readpack' });
    expect(loadConfig({}).redis.kind).toBe('standalone');
  });

  it('refuses a malformed REDIS_URL or prefix at start, naming the variable', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems({ REDIS_URL: 'redis+sentinel://127.0.0.1:26379' })).toEqual([{ variable: 'REDIS_URL', message: 'redis+sentinel:// needs ?name=<master group name>' }]);
    expect(problems({ REDIS_URL: 'redis+cluster://h1:7000/2' })[0]?.variable).toBe('REDIS_URL');
    expect(problems({ READPACK_PREFIX: 'a{b' })[0]?.variable).toBe('READPACK_PREFIX');
    expect(problems({ READPACK_PREFIX: '{a}{b}' })[0]?.variable).toBe('READPACK_PREFIX');
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' }).http.port).toBe(3000);
  });

  it('the README documents every variable exactly as the schema defines it', () => {
    const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
    expect(readme).toContain(renderConfigTable());
  });
});
