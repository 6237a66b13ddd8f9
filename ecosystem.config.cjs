// PM2 alternative to `npm start` (after `npm run build`):  pm2 start ecosystem.config.cjs
//
// PM2 does not start Redis. REDIS_URL must point at one that keeps its data across restarts and
// never evicts queue keys: `--appendonly yes --appendfsync everysec --maxmemory-policy noeviction`.
// Every process shares DATA_DIR (same machine, or a shared volume).
//
// PM2 stops an app with SIGINT (then SIGKILL after kill_timeout), not SIGTERM: the API and worker
// entry points must drain on either.

const path = require('node:path');

// The consumer stages (STAGES in packages/config/src/stages.ts); a test keeps the two in step.
// convert needs LibreOffice (`soffice`) on the machine: without it set CONVERT_CONSUMERS=0, and
// PPT/RTF/ODT/ODP uploads answer 415 converter_unavailable.
const STAGES = ['extract', 'convert', 'render', 'ocr', 'mineru', 'assemble'];

const shutdownGraceMs = Number(process.env.SHUTDOWN_GRACE_MS || 30000);

/** Settings every app shares. */
const common = {
  cwd: __dirname,
  // Past the app's own shutdown grace, so PM2's SIGKILL only hits a process that is truly stuck.
  kill_timeout: shutdownGraceMs + 5000,
  // A crash loop backs off: 1 s, then ×1.5 per restart up to PM2's 15 s cap; back to 1 s once the
  // app has stayed up for 30 s.
  exp_backoff_restart_delay: 1000,
  // 78 (EXIT_CONFIG_ERROR in packages/config/src/process-policy.ts): the process refused its
  // configuration and said why on stderr; restarting it would only say so again, forever.
  stop_exit_codes: [78],
  merge_logs: true,
};

/**
 * The mineru consumer only talks to a MinerU server: without MINERU_URL it would sit idle (the API
 * refuses engine=mineru then), so it runs only with a URL or when asked for by MINERU_CONSUMERS,
 * as under `npm start`.
 */
function wanted(stage) {
  if (stage !== 'mineru') return true;
  return Boolean(process.env.MINERU_URL) || Boolean(process.env.MINERU_CONSUMERS);
}

/** A count from the environment: a number, or PM2's own words ('max', '-1'), passed through. */
function instancesFrom(variable, fallback) {
  const value = process.env[variable];
  if (value === undefined || value === '') return fallback;
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

module.exports = {
  apps: [
    {
      ...common,
      name: 'readpack-api',
      script: path.join('apps', 'api', 'dist', 'main.js'),
      exec_mode: 'cluster',
      instances: instancesFrom('API_INSTANCES', 'max'),
    },
    ...STAGES.filter(wanted).map((stage) => ({
      ...common,
      name: `readpack-${stage}`,
      script: path.join('apps', 'worker', 'dist', 'main.js'),
      args: stage,
      exec_mode: 'fork',
      instances: instancesFrom(`${stage.toUpperCase()}_CONSUMERS`, 1),
    })),
  ],
};
