import type { ProgressSource } from '../api/progress-source.js';
import { JobRow } from './job-row.js';

const STORAGE_KEY = 'readpack.jobs';
/** Older entries drop off: the list is a working view of this tab, not an archive. */
const KEEP = 50;

interface StoredJob {
  jobId: string;
  name: string;
}

/**
 * Every file uploaded in this tab, newest batch first, each watched until it is done or failed.
 * The list survives a reload (sessionStorage) and moving between the upload page and the viewer.
 */
export class JobBoard {
  private readonly rows: JobRow[] = [];
  readonly list: HTMLUListElement;

  private readonly stops = new Map<JobRow, () => void>();

  constructor(private readonly source: ProgressSource) {
    this.list = document.createElement('ul');
    this.list.className = 'job-list';
    this.list.setAttribute('aria-label', 'Uploaded documents');
    for (const job of readStored()) this.track(job, 'end');
  }

  get size(): number {
    return this.rows.length;
  }

  addBatch(files: StoredJob[]): void {
    for (const job of [...files].reverse()) this.track(job, 'start');
    for (const row of this.rows.splice(KEEP)) {
      this.stops.get(row)?.();
      this.stops.delete(row);
      row.element.remove();
    }
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.rows.map(({ jobId, name }) => ({ jobId, name }))));
  }

  /** Watches every unfinished row again: after the API key changed, polls refused with 401 can succeed. */
  rewatch(): void {
    for (const row of this.rows) {
      if (row.finished) continue;
      this.stops.get(row)?.();
      this.watch(row);
    }
  }

  private watch(row: JobRow): void {
    // Watches until terminal; the row ignores anything after that.
    this.stops.set(row, this.source.watch(row.jobId, (view) => row.update(view), (problem) => row.problem(problem)));
  }

  private track(job: StoredJob, where: 'start' | 'end'): void {
    const row = new JobRow(job.jobId, job.name);
    if (where === 'start') {
      this.rows.unshift(row);
      this.list.prepend(row.element);
    } else {
      this.rows.push(row);
      this.list.append(row.element);
    }
    this.watch(row);
  }
}

function readStored(): StoredJob[] {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter(isStoredJob) : [];
  } catch (error) {
    // A hand-edited or foreign value: start with an empty list rather than a broken page.
    console.warn('ignoring unreadable job list in sessionStorage', error);
    return [];
  }
}

function isStoredJob(value: unknown): value is StoredJob {
  if (typeof value !== 'object' || value === null) return false;
  const { jobId, name } = value as Partial<Record<keyof StoredJob, unknown>>;
  return typeof jobId === 'string' && typeof name === 'string';
}
