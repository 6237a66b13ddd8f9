/**
 * What the web app reads from the API. The reading package's own types come from
 * @readpack/reading-package (type-only: nothing of it is bundled); the status document is
 * restated here because the app must not pull in the server's job-state package.
 */
export type { FlowBlock, FurnitureBlock, ListBlock, PackageManifest, PackagePage, TableBlock } from '@readpack/reading-package';
import type { AssetEntry, PackageManifest } from '@readpack/reading-package';

export type JobStatus = 'queued' | 'processing' | 'done' | 'failed';
export type JobPhase = 'queued' | 'extract' | 'ocr' | 'mineru' | 'assemble' | 'view_ready';
export type EngineChoice = 'local' | 'mineru' | 'auto';

/** `GET /api/files/job/:id` (JobView in packages/job-state/src/types.ts). */
export interface JobStatusView {
  jobId: string;
  status: JobStatus;
  phase: JobPhase;
  progress: { done: number; total: number };
  error?: { code: string; message: string };
  source: { filename: string; mediaType: string; size: number };
}

/** `202` of `POST /api/files/batch`. */
export interface BatchCreated {
  batchId: string;
  statusUrl: string;
  files: { index: number; name: string; jobId: string }[];
}

/** The package as the API answers it: every asset with the URL it is served at. */
export type ServedPackage = Omit<PackageManifest, 'tenant' | 'assets'> & { assets: (AssetEntry & { url: string })[] };

/** `GET /app-config.json` (apps/api/src/routes/web.ts): what the form may offer on this deployment. */
export interface AppConfig {
  authRequired: boolean;
  engines: EngineChoice[];
  defaultEngine: EngineChoice;
  defaultOcrLang: string;
  ocrLangs: string[];
  maxBatchFiles: number;
  maxUploadBytes: number;
}
