export { MinerUClient } from './client.js';
export type { MinerUClientOptions, MinerUFile, SubmitOptions, CallOptions, MinerUResult, MinerUResultState } from './client.js';
export { MinerUError, isMinerUError } from './errors.js';
export type { MinerUErrorKind, MinerUErrorDetails } from './errors.js';
export { runTask } from './run-task.js';
export type { RunTaskOptions, RunTaskOutcome } from './run-task.js';
export { mapMinerUResult } from './map-result.js';
export type { MappedMinerUDocument, MappedBlock, MappedBlockType, MappedImage, MapOptions, PageSize, BBox } from './map-result.js';
export { parseHtmlTable } from './html-table.js';
export { decodeDataUri } from './data-uri.js';
export type { DecodedDataUri } from './data-uri.js';
export { parseRetryAfter } from './retry-after.js';
export type { FetchLike } from './http.js';
export { MINERU_BACKENDS } from './wire.js';
export type {
  MinerUBackend,
  MinerUParseMethod,
  MinerUTaskState,
  MinerUTaskStatus,
  MinerUHealth,
  MinerUContentItem,
  MinerUWireResult,
  MinerUWireFileResult,
} from './wire.js';
export { mineruBlocks } from './reading-blocks.js';
