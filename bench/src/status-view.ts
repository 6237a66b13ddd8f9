import type { JobView } from '@readpack/job-state';

/**
 * The status document built in Node from the record's fields (one HGETALL), as the alternative
 * to building it in Lua on every change and storing it: the bench serves both and keeps the Lua
 * builder only if it wins. Same members, same order, same text as prelude.lua's publishView; the
 * bench checks the two agree byte for byte before it measures anything.
 */
export function viewFromFields(jobId: string, f: Record<string, string>): string {
  const view: JobView = {
    jobId,
    status: f.status as JobView['status'],
    phase: (f.phase ?? 'queued') as JobView['phase'],
    progress: { done: Number(f.done ?? 0), total: Number(f.total ?? 0) },
    ...(f.errorCode ? { error: { code: f.errorCode, message: f.errorMessage ?? '' } } : {}),
    ...(f.result ? { result: resultPointer(f.result) } : {}),
    source: { filename: f.filename ?? '', mediaType: f.mediaType ?? '', size: Number(f.size ?? 0), ...(f.originalFilename === undefined ? {} : { originalFilename: f.originalFilename }) },
    ...(f.batchId ? { batch: { batchId: f.batchId, index: Number(f.batchIndex ?? 0) } } : {}),
    series: Number(f.series ?? 1),
    ...history(f.history),
    createdAt: new Date(Number(f.createdAt ?? 0)).toISOString(),
    updatedAt: new Date(Number(f.updatedAt ?? 0)).toISOString(),
  };
  return JSON.stringify(view);
}

function resultPointer(raw: string): NonNullable<JobView['result']> {
  const { packageId, size, sha256 } = JSON.parse(raw) as NonNullable<JobView['result']>;
  return { packageId, size, sha256 };
}

function history(raw: string | undefined): Pick<JobView, 'history'> {
  if (!raw) return {};
  const entries = (JSON.parse(raw) as { series: number; code?: string; message?: string; phase?: string; failedAt: number }[]).map((h) => ({
    series: h.series,
    code: h.code ?? '',
    message: h.message ?? '',
    phase: h.phase ?? '',
    failedAt: new Date(h.failedAt).toISOString(),
  }));
  return entries.length > 0 ? { history: entries as NonNullable<JobView['history']> } : {};
}
