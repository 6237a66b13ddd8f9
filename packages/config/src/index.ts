export { loadConfig, ConfigError, type Config } from './config.js';
export { STAGES, type Stage } from './stages.js';
export { describeConfig, renderConfigTable, type ConfigVariable } from './variables.js';
