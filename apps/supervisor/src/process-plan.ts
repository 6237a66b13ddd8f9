import { ConfigError, CONSUMER_ROLES, type Config, type ConsumerRole } from '@readpack/config';

/** One consumer process `npm start` runs: `node apps/worker/dist/main.js <roles…>`. */
export interface ConsumerProcess {
  /** Unique among the supervisor's processes: `<stage>-<n>`, or `shared` for the process of several roles. */
  name: string;
  roles: readonly ConsumerRole[];
}

/**
 * How many consumers each role gets: `<STAGE>_CONSUMERS` (mineru's follows MINERU_URL when unset),
 * convert's as LibreOffice allows (conversion.ts), WEBHOOK_CONSUMERS.
 * A mineru consumer without MINERU_URL could only fail every job it got (and none is routed to it):
 * asking for one explicitly is a configuration error rather than a process that idles for nothing.
 */
export function consumerCounts(config: Config, convertConsumers: number): Record<ConsumerRole, number> {
  const mineru = config.stages.mineru.consumers;
  if (config.mineru.consumersExplicit && mineru > 0 && config.mineru.url === undefined) {
    throw new ConfigError([{ variable: 'MINERU_CONSUMERS', message: `${mineru} mineru consumers need MINERU_URL (unset MINERU_CONSUMERS, or set it to 0, to run without MinerU)` }]);
  }
  return {
    extract: config.stages.extract.consumers,
    convert: convertConsumers,
    render: config.stages.render.consumers,
    ocr: config.stages.ocr.consumers,
    mineru,
    assemble: config.stages.assemble.consumers,
    webhook: config.webhooks.consumers,
  };
}

/**
 * The consumer processes for these counts. Roles listed in `shared` that run exactly one consumer
 * live together in one process (`shared`): a small install pays one Node runtime for them, not
 * one each. A role asked for more than one consumer, or not listed, runs in processes of its own,
 * one per consumer, so it still scales alone. A role with no consumers runs nowhere.
 */
export function planConsumerProcesses(counts: Record<ConsumerRole, number>, shared: readonly ConsumerRole[]): ConsumerProcess[] {
  const together = CONSUMER_ROLES.filter((role) => shared.includes(role) && counts[role] === 1);
  const grouped = together.length > 1 ? together : [];
  const plan: ConsumerProcess[] = grouped.length > 0 ? [{ name: 'shared', roles: grouped }] : [];
  for (const role of CONSUMER_ROLES) {
    if (grouped.includes(role)) continue;
    for (let i = 1; i <= counts[role]; i += 1) plan.push({ name: `${role}-${i}`, roles: [role] });
  }
  return plan;
}

/**
 * The API's entry point: one instance runs the server itself; several run node:cluster's primary,
 * which forks them. The primary is a whole Node process (≈85 MB) that serves no request.
 */
export function apiEntry(instances: number): 'apps/api/dist/main.js' | 'apps/api/dist/cluster.js' {
  return instances === 1 ? 'apps/api/dist/main.js' : 'apps/api/dist/cluster.js';
}
