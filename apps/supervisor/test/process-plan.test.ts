import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, type ConsumerRole } from '@readpack/config';
import { apiEntry, consumerCounts, planConsumerProcesses } from '../src/process-plan.js';

const DEFAULT_SHARED = loadConfig({}).sharedProcessStages;
/** npm start's counts for an environment, with LibreOffice present (one convert consumer) unless told. */
const countsFor = (env: NodeJS.ProcessEnv, convert = 1) => consumerCounts(loadConfig(env), convert);
const planFor = (env: NodeJS.ProcessEnv, convert = 1) => planConsumerProcesses(countsFor(env, convert), loadConfig(env).sharedProcessStages);
const rolesRun = (plan: { roles: readonly ConsumerRole[] }[]) => plan.flatMap((p) => p.roles);

describe("npm start's process plan", () => {
  it('defaults: one shared process for every light role, OCR alone, no mineru without MINERU_URL', () => {
    expect(planFor({})).toEqual([
      { name: 'shared', roles: ['extract', 'convert', 'render', 'assemble', 'webhook'] },
      { name: 'ocr-1', roles: ['ocr'] },
    ]);
  });

  it('MINERU_URL brings one mineru consumer, in the shared process', () => {
    const plan = planFor({ MINERU_URL: 'http://mineru:8000' });
    expect(plan[0]).toEqual({ name: 'shared', roles: ['extract', 'convert', 'render', 'mineru', 'assemble', 'webhook'] });
    expect(rolesRun(plan).filter((r) => r === 'mineru')).toHaveLength(1);
  });

  it('MINERU_CONSUMERS above 0 without MINERU_URL is a configuration error; 0 is fine', () => {
    expect(() => countsFor({ MINERU_CONSUMERS: '1' })).toThrow(ConfigError);
    expect(rolesRun(planFor({ MINERU_CONSUMERS: '0' }))).not.toContain('mineru');
    expect(rolesRun(planFor({ MINERU_CONSUMERS: '2', MINERU_URL: 'http://mineru:8000' })).filter((r) => r === 'mineru')).toHaveLength(2);
  });

  it('a stage given more than one consumer leaves the shared process for processes of its own', () => {
    const plan = planFor({ RENDER_CONSUMERS: '3' });
    expect(plan.find((p) => p.name === 'shared')?.roles).toEqual(['extract', 'convert', 'assemble', 'webhook']);
    expect(plan.filter((p) => p.roles.includes('render'))).toEqual([1, 2, 3].map((i) => ({ name: `render-${i}`, roles: ['render'] })));
  });

  it('no convert consumer without LibreOffice; a role with 0 consumers runs nowhere', () => {
    const plan = planFor({ ASSEMBLE_CONSUMERS: '0', WEBHOOK_CONSUMERS: '0' }, 0);
    expect(plan).toEqual([
      { name: 'shared', roles: ['extract', 'render'] },
      { name: 'ocr-1', roles: ['ocr'] },
    ]);
  });

  it('one consumer per stage, each in its own process, when the shared list names a single stage', () => {
    const plan = planFor({ SHARED_PROCESS_STAGES: 'extract' });
    expect(plan.every((p) => p.roles.length === 1)).toBe(true);
    expect(plan.map((p) => p.name)).toEqual(['extract-1', 'convert-1', 'render-1', 'ocr-1', 'assemble-1', 'webhook-1']);
  });

  it('OCR can share too when listed; every role runs exactly as often as counted', () => {
    const counts: Record<ConsumerRole, number> = { extract: 2, convert: 1, render: 1, ocr: 1, mineru: 0, assemble: 1, webhook: 1 };
    const plan = planConsumerProcesses(counts, [...DEFAULT_SHARED, 'ocr']);
    expect(plan[0]).toEqual({ name: 'shared', roles: ['convert', 'render', 'ocr', 'assemble', 'webhook'] });
    for (const role of Object.keys(counts) as ConsumerRole[]) expect(rolesRun(plan).filter((r) => r === role)).toHaveLength(counts[role]);
    expect(new Set(plan.map((p) => p.name)).size).toBe(plan.length);
  });

  it('the API: one plain process for one instance, the node:cluster primary for more', () => {
    expect(apiEntry(loadConfig({}).http.apiInstances)).toBe('apps/api/dist/main.js');
    expect(apiEntry(2)).toBe('apps/api/dist/cluster.js');
  });
});
