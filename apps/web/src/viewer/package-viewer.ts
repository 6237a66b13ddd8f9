import { ApiProblem, type ApiClient } from '../api/client.js';
import type { FlowBlock, PackagePage, ServedPackage } from '../api/types.js';
import { h, replaceChildren } from '../ui/dom.js';
import { explainFailure } from '../upload/failure-reasons.js';
import { AssetLoader } from './asset-loader.js';
import { blockView, furnitureView } from './block-view.js';
import { outlineView } from './outline.js';

/**
 * The viewer of one finished job: outline, the blocks (beside the page image for OCR'd pages),
 * a toggle to the Markdown, and downloads. Returns a cleanup for when the route changes.
 */
export function showPackageViewer(main: HTMLElement, client: ApiClient, jobId: string): () => void {
  let cleanup: () => void = () => undefined;
  let left = false;
  replaceChildren(main, h('p', { class: 'muted', role: 'status' }, 'Loading the package…'));
  client
    .package(jobId)
    .then((pkg) => {
      if (left) return;
      cleanup = render(main, client, pkg);
    })
    .catch((error: unknown) => {
      if (left) return;
      const problem = error instanceof ApiProblem ? error : new ApiProblem(0, 'internal_error', String(error));
      const { reason, action } =
        problem.code === 'package_not_ready' ? { reason: 'This document is not finished yet.', action: 'Go back to the list and wait for its bar to reach 100 %.' } : explainFailure(problem.code);
      replaceChildren(
        main,
        h('h1', {}, 'The package cannot be shown'),
        h('p', { role: 'alert' }, reason, ' ', action),
        h('p', { class: 'failure-detail' }, `${problem.message} `, h('code', {}, problem.code)),
        h('p', {}, h('a', { href: '#/' }, 'Back to your documents')),
      );
    });
  return () => {
    left = true;
    cleanup();
  };
}

function render(main: HTMLElement, client: ApiClient, pkg: ServedPackage): () => void {
  const assets = new AssetLoader(client, pkg);
  const downloads = downloadLinks(pkg);
  const blocks = h('div', { class: 'doc-blocks', id: 'doc-blocks' }, documentView(pkg, assets), unplacedImages(pkg, assets), furnitureView(pkg.furniture));
  const markdown = h('pre', { class: 'doc-markdown', id: 'doc-markdown', tabindex: 0, 'aria-label': 'Markdown', hidden: true }, h('code', {}, pkg.markdown));
  const toggle = viewToggle(blocks, markdown);

  replaceChildren(
    main,
    h(
      'div',
      { class: 'viewer-head' },
      h('p', { class: 'back' }, h('a', { href: '#/' }, '← Your documents')),
      h('h1', { class: 'viewer-title', id: 'viewer-title' }, pkg.source.filename),
      h('p', { class: 'muted' }, summary(pkg)),
      pkg.fallback ? h('p', { class: 'notice' }, `MinerU could not be used (${pkg.fallback.reason.message}); the local engine read this document.`) : null,
      h('div', { class: 'viewer-tools' }, toggle, downloads.element),
    ),
    h('div', { class: 'viewer' }, outlineView(pkg.body), h('article', { class: 'doc', 'aria-labelledby': 'viewer-title' }, blocks, markdown)),
  );
  return () => {
    assets.dispose();
    downloads.dispose();
  };
}

function summary(pkg: ServedPackage): string {
  const pages = pkg.pages?.length;
  const counts = { heading: 0, table: 0, figure: 0 };
  for (const block of pkg.body) if (block.type in counts) counts[block.type as keyof typeof counts] += 1;
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [pages ? count(pages, 'page') : null, count(counts.heading, 'heading'), count(counts.table, 'table'), count(counts.figure, 'figure'), `read by ${pkg.origin.parser}`];
  return parts.filter(Boolean).join(' · ');
}

/**
 * Paged documents are shown page by page, the rendered page image (OCR'd pages) beside the
 * blocks read from it; other documents are one flow.
 */
function documentView(pkg: ServedPackage, assets: AssetLoader): HTMLElement[] {
  const indexed = pkg.body.map((block, index) => ({ block, index }));
  if (!pkg.pages || pkg.pages.length === 0) return indexed.map(({ block, index }) => blockView(block, index, assets));
  const unpaged = indexed.filter(({ block }) => block.page === undefined);
  return [
    ...unpaged.map(({ block, index }) => blockView(block, index, assets)),
    ...pkg.pages.map((page) =>
      pageView(
        page,
        indexed.filter(({ block }) => block.page === page.index),
        assets,
      ),
    ),
  ];
}

function pageView(page: PackagePage, blocks: { block: FlowBlock; index: number }[], assets: AssetLoader): HTMLElement {
  const label = `Page ${page.index + 1}`;
  const image = page.image ? h('div', { class: 'page-image' }, assets.image(page.image, `${label} as rendered for text recognition`, 'page-picture')) : null;
  return h(
    'section',
    { class: `page${image ? ' with-image' : ''}`, 'aria-label': label },
    h('p', { class: 'page-label' }, label, page.ocr?.chosen ? ` · text recognised (${page.ocr.lang}, confidence ${Math.round(page.ocr.confidence)} %)` : ''),
    image,
    h(
      'div',
      { class: 'page-blocks' },
      page.error ? h('p', { class: 'notice' }, `This page could not be read: ${page.error.message}`) : null,
      blocks.map(({ block, index }) => blockView(block, index, assets)),
    ),
  );
}

/**
 * Pictures a parser kept from inside the document without placing any of them (DOCX today):
 * shown after the text rather than lost. When the body does place figures, the images left over
 * are renderings of other blocks (MinerU's crops of tables and equations), already shown.
 */
function unplacedImages(pkg: ServedPackage, assets: AssetLoader): HTMLElement | null {
  const placed = new Set(pkg.body.flatMap((block) => (block.type === 'figure' && block.asset ? [block.asset] : [])));
  if (placed.size > 0) return null;
  const loose = pkg.assets.filter((asset) => asset.role === 'embedded-image' && !placed.has(asset.sha256) && asset.mediaType.startsWith('image/'));
  if (loose.length === 0) return null;
  return h(
    'section',
    { class: 'unplaced-images', 'aria-labelledby': 'unplaced-title' },
    h('h2', { id: 'unplaced-title' }, 'Images in this document'),
    h('p', { class: 'muted' }, 'Where these sat in the text was not recorded.'),
    loose.map((asset) => h('figure', { class: 'doc-figure' }, assets.image(asset.sha256, asset.name ?? '', 'figure-image'), asset.name ? h('figcaption', {}, asset.name) : null)),
  );
}

/** Two pressed-state buttons: the same content as blocks or as its Markdown source. */
function viewToggle(blocks: HTMLElement, markdown: HTMLElement): HTMLElement {
  const asBlocks = h('button', { type: 'button', 'aria-pressed': 'true' }, 'Document');
  const asMarkdown = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Markdown');
  const show = (markdownShown: boolean) => {
    blocks.hidden = markdownShown;
    markdown.hidden = !markdownShown;
    asBlocks.setAttribute('aria-pressed', String(!markdownShown));
    asMarkdown.setAttribute('aria-pressed', String(markdownShown));
  };
  asBlocks.addEventListener('click', () => show(false));
  asMarkdown.addEventListener('click', () => show(true));
  return h('div', { class: 'toggle', role: 'group', 'aria-label': 'Show as' }, asBlocks, asMarkdown);
}

/** The package JSON and Markdown as files, from what is already loaded: no second request, no key in a URL. */
function downloadLinks(pkg: ServedPackage): { element: HTMLElement; dispose(): void } {
  const base = pkg.source.filename.replace(/\.[^.]+$/, '') || pkg.jobId;
  const json = URL.createObjectURL(new Blob([JSON.stringify(pkg, null, 2)], { type: 'application/json' }));
  const markdown = URL.createObjectURL(new Blob([pkg.markdown], { type: 'text/markdown' }));
  return {
    element: h(
      'div',
      { class: 'downloads' },
      h('a', { class: 'button', href: json, download: `${base}.package.json` }, 'Download package (JSON)'),
      h('a', { class: 'button', href: markdown, download: `${base}.md` }, 'Download Markdown'),
    ),
    dispose() {
      URL.revokeObjectURL(json);
      URL.revokeObjectURL(markdown);
    },
  };
}
