import { Redis } from 'ioredis';
import { JobStateStore } from '@readpack/job-state';
const r = new Redis('redis://127.0.0.1:6379');
const s = new JobStateStore(r, { prefix: 'prof', ttl: { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 }, leaseMs: 1000, actor: 'vm:12345' });
const job = { jobId: 'job_' + 'A'.repeat(22), tenant: 'default', source: { filename: 'Quarterly report 2026-Q3 (final).docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 103966, sha256: 'a'.repeat(64) } };
await s.createJob(job); await s.start(job, 'extract'); await s.complete(job, { packageId: job.jobId, size: 1500, sha256: 'b'.repeat(64) });
r.disconnect();
