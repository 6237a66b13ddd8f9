export { testRedisUrl, uniqueName, connectTestRedis, deleteKeysWithPrefix } from './redis.js';
export { repoRoot, fixturePath, corpusManifest, containsSnippet, type CorpusEntry } from './fixtures.js';
export { waitFor } from './wait.js';
export { cjkTextPng, textPng, fontFor, type TestScript, type TextImageOptions } from './cjk-image.js';
export { buildPdf, streamObject } from './pdf-builder.js';
export { assertValidPackage, packageSchema } from './package-schema.js';
export { twoColumnPdf, outlinedPdf, numberedPdf, type TwoColumnPdf, type OutlinedPdf, type NumberedPdf } from './generated-pdfs.js';
export { ThrowawayRedis, type ThrowawayRedisOptions, type RedisExit } from './throwaway-redis.js';
