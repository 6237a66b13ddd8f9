import type { ApiClient } from '../api/client.js';
import type { AppConfig } from '../api/types.js';
import { h, replaceChildren } from '../ui/dom.js';
import type { JobBoard } from './job-board.js';
import { uploadForm } from './upload-form.js';

/** The start page: the form, then every file of this tab with its bar. */
export function showUploadPage(main: HTMLElement, client: ApiClient, config: AppConfig, board: JobBoard): () => void {
  const empty = h('p', { class: 'muted', id: 'no-jobs' }, 'Nothing uploaded in this tab yet.');
  const form = uploadForm(client, config, (batch) => {
    board.addBatch(batch.files.map(({ jobId, name }) => ({ jobId, name })));
    empty.hidden = true;
  });
  empty.hidden = board.size > 0;
  replaceChildren(
    main,
    h('section', { class: 'upload', 'aria-labelledby': 'upload-title' }, h('h1', { id: 'upload-title' }, 'Read documents'), h('p', { class: 'lead' }, 'Upload a batch of documents and get each one back as text, headings, tables and figures.'), form),
    h('section', { class: 'jobs', 'aria-labelledby': 'jobs-title' }, h('h2', { id: 'jobs-title' }, 'Your documents'), empty, board.list),
  );
  // The board's list is shared with later visits of this page; nothing to stop here.
  return () => undefined;
}
