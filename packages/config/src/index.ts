export { loadConfig, ConfigError, type Config, type S3Config } from './config.js';
export { CONSUMER_ROLES, parseRoleList, STAGES, type ConsumerRole, type Stage } from './stages.js';
export { describeConfig, renderConfigTable, type ConfigVariable } from './variables.js';
export { EXIT_CONFIG_ERROR, RESTART_BACKOFF, RestartBackoff, restartDelay, type BackoffPolicy } from './process-policy.js';
