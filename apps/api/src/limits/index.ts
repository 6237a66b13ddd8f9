/** The API's admission path, importable as `@readpack/api/limits` (bench:durability measures it). */
export { UploadRateLimiter } from './upload-rate.js';
export { TenantAdmission, fairPriority } from './active-jobs.js';
