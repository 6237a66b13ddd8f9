import type { MinerUResult } from './client.js';
import { decodeDataUri } from './data-uri.js';
import { parseHtmlTable } from './html-table.js';
import { isRecord } from './http.js';
import type { MinerUContentItem } from './wire.js';

export type MappedBlockType =
  | 'heading'
  | 'paragraph'
  | 'table'
  | 'image'
  | 'equation'
  | 'code'
  | 'list'
  | 'header'
  | 'footer'
  | 'page_number'
  | 'footnote'
  | 'other';

/** `[x0, y0, x1, y1]`, origin at the page's top-left corner, y growing downwards. */
export type BBox = [number, number, number, number];

export interface PageSize {
  widthPt: number;
  heightPt: number;
}

export interface MappedBlock {
  type: MappedBlockType;
  /** MinerU's own item type (`text`, `chart`, `aside_text`, …). */
  sourceType: string;
  /** 0-based page of the whole document. */
  pageIndex: number;
  /** Scaled to 0–1000 of the page, as MinerU sends it. */
  bbox: BBox;
  /** In PDF points, when the page's size is known. */
  bboxPt?: BBox;
  text?: string;
  /** Heading level, 1 = top (MinerU's `text_level`). */
  level?: number;
  /** A table as MinerU wrote it (`table_body`). */
  html?: string;
  /** A table as rows of cell text; a merged cell's text sits in its first position. */
  cells?: string[][];
  /** Key of the block's picture in `images` (images, tables and equations have one). */
  image?: string;
  captions?: string[];
  footnotes?: string[];
}

export interface MappedImage {
  name: string;
  mediaType: string;
  data: Uint8Array;
}

export interface MappedMinerUDocument {
  blocks: MappedBlock[];
  markdown: string;
  images: MappedImage[];
  /** Each page's text in reading order, without running headers, footers and page numbers. */
  pages: { index: number; text: string }[];
  /** What could not be mapped (an undecodable image, an item without a page) — never silent. */
  warnings: string[];
}

export interface MapOptions {
  /** Page sizes of the whole document, indexed by page. Default: middle_json's `page_size`s. */
  pageSizes?: PageSize[];
  /**
   * The page MinerU started at (`startPageId`): MinerU crops the PDF before parsing, so its
   * `page_idx` 0 is this page.
   */
  firstPageIndex?: number;
}

/** Running furniture MinerU itself leaves out of the markdown; kept as blocks, not page text. */
const FURNITURE: ReadonlySet<MappedBlockType> = new Set(['header', 'footer', 'page_number']);

/** Turns a MinerU result into the neutral structure the reading package is built from. */
export function mapMinerUResult(result: MinerUResult, options: MapOptions = {}): MappedMinerUDocument {
  const warnings: string[] = [];
  const firstPage = options.firstPageIndex ?? 0;
  const pageSizes = options.pageSizes ?? pageSizesFromMiddleJson(result.middleJson, firstPage);
  const blocks: MappedBlock[] = [];
  (result.contentList ?? []).forEach((item, position) => {
    const block = mapItem(item, firstPage, pageSizes);
    if (typeof block === 'string') {
      warnings.push(`content_list[${position}]: ${block}`);
      return;
    }
    if (!isBBox(item.bbox)) warnings.push(`content_list[${position}]: ${item.type} without a valid bbox`);
    blocks.push(block);
  });

  const images: MappedImage[] = [];
  for (const name of Object.keys(result.images).sort()) {
    const decoded = decodeDataUri(result.images[name] ?? '');
    if (decoded) images.push({ name, mediaType: decoded.mediaType, data: decoded.data });
    else warnings.push(`image ${name}: not a readable data URI`);
  }
  const known = new Set(images.map((image) => image.name));
  if (known.size > 0) {
    for (const block of blocks) {
      if (block.image !== undefined && !known.has(block.image)) warnings.push(`page ${block.pageIndex}: ${block.sourceType} refers to missing image ${block.image}`);
    }
  }

  return { blocks, markdown: result.markdown ?? '', images, pages: pageTexts(blocks, firstPage, result.middleJson), warnings };
}

function mapItem(item: MinerUContentItem, firstPage: number, pageSizes: (PageSize | undefined)[]): MappedBlock | string {
  if (typeof item.type !== 'string') return 'item without a type';
  if (!Number.isInteger(item.page_idx) || item.page_idx < 0) return `${item.type} without a page_idx`;
  const type = blockType(item);
  const pageIndex = item.page_idx + firstPage;
  const bbox = asBBox(item.bbox);
  const block: MappedBlock = { type, sourceType: item.type, pageIndex, bbox };
  const size = pageSizes[pageIndex];
  if (size) block.bboxPt = toPoints(bbox, size);

  const text = blockText(item, type);
  if (text) block.text = text;
  if (type === 'heading') block.level = item.text_level;
  if (typeof item.table_body === 'string' && item.table_body !== '') {
    block.html = item.table_body;
    block.cells = parseHtmlTable(item.table_body);
  }
  if (typeof item.img_path === 'string' && item.img_path !== '') block.image = item.img_path.split('/').pop();
  const captions = strings(item[`${item.type}_caption`]);
  if (captions.length > 0) block.captions = captions;
  const footnotes = strings(item[`${item.type}_footnote`]);
  if (footnotes.length > 0) block.footnotes = footnotes;
  return block;
}

function blockType(item: MinerUContentItem): MappedBlockType {
  switch (item.type) {
    case 'text':
    case 'title':
      return typeof item.text_level === 'number' && item.text_level >= 1 ? 'heading' : 'paragraph';
    case 'image':
    case 'chart':
      return 'image';
    case 'table':
      return 'table';
    case 'equation':
    case 'interline_equation':
      return 'equation';
    case 'code':
    case 'algorithm':
      return 'code';
    case 'list':
    case 'index':
      return 'list';
    case 'header':
    case 'footer':
    case 'page_number':
      return item.type;
    case 'page_footnote':
      return 'footnote';
    default:
      return 'other';
  }
}

function blockText(item: MinerUContentItem, type: MappedBlockType): string | undefined {
  if (type === 'list' && Array.isArray(item.list_items)) return strings(item.list_items).join('\n') || undefined;
  if (type === 'code' && typeof item.code_body === 'string') return item.code_body.trim() || undefined;
  return typeof item.text === 'string' ? item.text.trim() || undefined : undefined;
}

/** The text a block contributes to its page: captions, body, table rows, footnotes. */
function readingText(block: MappedBlock): string {
  const parts = [...(block.captions ?? [])];
  if (block.text) parts.push(block.text);
  if (block.cells) parts.push(block.cells.map((row) => row.join('\t')).join('\n'));
  parts.push(...(block.footnotes ?? []));
  return parts.filter((part) => part !== '').join('\n');
}

function pageTexts(blocks: MappedBlock[], firstPage: number, middleJson: unknown): { index: number; text: string }[] {
  const parsedPages = isRecord(middleJson) && Array.isArray(middleJson.pdf_info) ? middleJson.pdf_info.length : 0;
  const lastPage = Math.max(firstPage + parsedPages - 1, ...blocks.map((block) => block.pageIndex));
  const pages: { index: number; text: string }[] = [];
  for (let index = firstPage; index <= lastPage; index++) {
    const text = blocks
      .filter((block) => block.pageIndex === index && !FURNITURE.has(block.type))
      .map(readingText)
      .filter((part) => part !== '')
      .join('\n');
    pages.push({ index, text });
  }
  return pages;
}

function pageSizesFromMiddleJson(middleJson: unknown, firstPage: number): (PageSize | undefined)[] {
  const sizes: (PageSize | undefined)[] = [];
  if (!isRecord(middleJson) || !Array.isArray(middleJson.pdf_info)) return sizes;
  middleJson.pdf_info.forEach((page: unknown, position) => {
    if (!isRecord(page) || !Array.isArray(page.page_size)) return;
    const [widthPt, heightPt] = page.page_size as unknown[];
    const index = typeof page.page_idx === 'number' ? page.page_idx : position;
    if (typeof widthPt === 'number' && typeof heightPt === 'number') sizes[index + firstPage] = { widthPt, heightPt };
  });
  return sizes;
}

function isBBox(value: unknown): value is BBox {
  return Array.isArray(value) && value.length === 4 && value.every((n) => typeof n === 'number' && Number.isFinite(n));
}

function asBBox(value: unknown): BBox {
  return isBBox(value) ? [value[0], value[1], value[2], value[3]] : [0, 0, 0, 0];
}

function toPoints(bbox: BBox, size: PageSize): BBox {
  const scale = (value: number, extent: number) => Math.round(((value * extent) / 1000) * 100) / 100;
  return [scale(bbox[0], size.widthPt), scale(bbox[1], size.heightPt), scale(bbox[2], size.widthPt), scale(bbox[3], size.heightPt)];
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter((v) => v !== '');
}
