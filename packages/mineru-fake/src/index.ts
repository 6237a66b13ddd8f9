export { startFakeMinerU } from './server.js';
export type { FakeMinerU, FakeMinerUOptions, FakeStats, RecordedRequest } from './server.js';
export type { FakeControls, FailRule, HangRule, FaultTarget } from './controls.js';
export { loadBuiltinCanned } from './canned.js';
export type { CannedDocument, CannedItem } from './canned.js';
