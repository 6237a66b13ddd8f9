export { JobStateStore, LeasedJobState, LeaseLostError, QUEUED_GRACE_MS, decodeRecord, type JobStateOptions, type NewJob, type NewBatch, type TerminalNotice } from './store.js';
export { PHASES, phaseRank, type Phase } from './phases.js';
export { dedupIdentity } from './identity.js';
export { ActiveJobsGate, type Admission, type AdmissionOptions } from './admission.js';
export * from './types.js';
export { JOB_ERRORS, JOB_ERROR_CODES, isJobErrorCode, deadLettered, renderJobErrorTable, spliceJobErrorTable, type JobErrorCode, type JobErrorSpec } from './errors.js';
