export * from './blocks.js';
export * from './manifest.js';
export { blocksText, blockText, documentText } from './text.js';
export { renderMarkdown, type MarkdownOptions } from './markdown.js';
export { assetPath } from './asset-path.js';
