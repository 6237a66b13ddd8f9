import './styles.css';
import { readApiKey } from './api/api-key-store.js';
import { ApiClient, ApiProblem } from './api/client.js';
import { createProgressSource } from './api/progress-source.js';
import type { AppConfig } from './api/types.js';
import { mountApiKeyField } from './ui/api-key-field.js';
import { h, replaceChildren } from './ui/dom.js';
import { JobBoard } from './upload/job-board.js';
import { showUploadPage } from './upload/upload-page.js';
import { showPackageViewer } from './viewer/package-viewer.js';

/**
 * Two pages behind the URL hash: `#/` (upload and progress) and `#/jobs/<jobId>` (the viewer).
 * Hash routing keeps the server to one HTML file at `/`.
 */
const main = document.getElementById('main') as HTMLElement;
const keySlot = document.getElementById('api-key-slot') as HTMLElement;
const client = new ApiClient(readApiKey);

async function start(): Promise<void> {
  let config: AppConfig;
  try {
    config = await client.config();
  } catch (error) {
    const message = error instanceof ApiProblem ? error.message : String(error);
    replaceChildren(main, h('h1', {}, 'Readpack is not reachable'), h('p', { role: 'alert' }, `The page could not load its settings: ${message} Reload to try again.`));
    return;
  }
  const board = new JobBoard(createProgressSource(client, readApiKey));
  let leave: () => void = () => undefined;
  const route = () => {
    leave();
    const viewer = /^#\/jobs\/([^/]+)$/.exec(window.location.hash);
    leave = viewer ? showPackageViewer(main, client, decodeURIComponent(viewer[1] ?? '')) : showUploadPage(main, client, config, board);
    window.scrollTo(0, 0);
  };
  const keyChanged = () => {
    board.rewatch();
    route();
  };
  if (config.authRequired) mountApiKeyField(keySlot, keyChanged);
  window.addEventListener('hashchange', () => {
    route();
    // A new page for screen readers too: they start reading at the main region, not where the link was.
    main.focus({ preventScroll: true });
  });
  route();
}

void start();
