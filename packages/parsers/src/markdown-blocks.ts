import { Lexer, type Token, type Tokens } from 'marked';
import { gridTable, type FigureBlock, type FlowBlock, type ListBlock, type ListItemBlock, type Origin } from '@readpack/reading-package';
import { decodeEntities } from './html.js';
import { htmlBlocks } from './html-blocks.js';

/**
 * Markdown → blocks with marked's lexer (GFM): it gives the document's structure as tokens without
 * rendering HTML, so nothing in the Markdown is ever turned into markup we would have to trust.
 * Headings, paragraphs, nested lists, GFM tables (first row = header row), fenced and indented
 * code, block quotes (their blocks, in place), raw HTML blocks (read by html-blocks.ts), and
 * images as figures without asset (a Markdown image is a link; we never fetch it).
 */

/** Plain text of inline tokens: emphasis, links and code spans reduced to their text, entities decoded. */
function inlineText(tokens: readonly Token[] | undefined): string {
  let out = '';
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'br':
        out += '\n';
        break;
      case 'image':
        break; // a figure of its own (figures below)
      case 'codespan':
        out += decodeEntities(token.text);
        break;
      case 'html':
        out += decodeEntities(token.text.replace(/<[^>]*>/g, ''));
        break;
      default: {
        const nested = (token as { tokens?: Token[] }).tokens;
        out += nested ? inlineText(nested) : decodeEntities((token as { text?: string }).text ?? '');
      }
    }
  }
  return out;
}

function figures(tokens: readonly Token[] | undefined, origin: Origin): FigureBlock[] {
  const found: FigureBlock[] = [];
  for (const token of tokens ?? []) {
    if (token.type === 'image') {
      const image = token as Tokens.Image;
      const figure: FigureBlock = { type: 'figure', origin };
      if (image.text) figure.alt = decodeEntities(image.text);
      if (image.title) figure.caption = decodeEntities(image.title);
      found.push(figure);
    } else {
      found.push(...figures((token as { tokens?: Token[] }).tokens, origin));
    }
  }
  return found;
}

function list(token: Tokens.List, origin: Origin): ListBlock {
  const items: ListItemBlock[] = token.items.map((item) => {
    const texts: string[] = [];
    const children: ListBlock[] = [];
    for (const part of item.tokens) {
      if (part.type === 'list') children.push(list(part as Tokens.List, origin));
      else if (part.type === 'code') texts.push((part as Tokens.Code).text);
      else if (part.type !== 'space') texts.push(inlineText((part as { tokens?: Token[] }).tokens ?? [part]).trim());
    }
    const block: ListItemBlock = { type: 'list_item', text: texts.filter((t) => t !== '').join('\n'), origin };
    if (item.task) block.marker = item.checked ? '[x]' : '[ ]';
    if (children.length > 0) block.children = children;
    return block;
  });
  const block: ListBlock = { type: 'list', ordered: token.ordered, items, origin };
  if (token.ordered && typeof token.start === 'number' && token.start !== 1) block.start = token.start;
  return block;
}

function blocksOf(tokens: readonly Token[], origin: Origin): FlowBlock[] {
  const body: FlowBlock[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'heading': {
        const heading = token as Tokens.Heading;
        const text = inlineText(heading.tokens).trim();
        if (text !== '') body.push({ type: 'heading', level: Math.min(6, Math.max(1, heading.depth)), text, origin });
        break;
      }
      case 'paragraph':
      case 'text': {
        const inline = (token as Tokens.Paragraph).tokens;
        const text = inlineText(inline ?? [token]).trim();
        if (text !== '') body.push({ type: 'paragraph', text, origin });
        body.push(...figures(inline, origin));
        break;
      }
      case 'list':
        body.push(list(token as Tokens.List, origin));
        break;
      case 'table': {
        const table = token as Tokens.Table;
        const grid = [table.header.map((cell) => inlineText(cell.tokens).trim()), ...table.rows.map((row) => row.map((cell) => inlineText(cell.tokens).trim()))];
        body.push(gridTable(grid, origin, 1));
        break;
      }
      case 'code': {
        const code = token as Tokens.Code;
        const language = code.lang?.trim().split(/\s+/)[0];
        body.push({ type: 'code', text: code.text, ...(language ? { language } : {}), origin });
        break;
      }
      case 'blockquote':
        body.push(...blocksOf((token as Tokens.Blockquote).tokens, origin));
        break;
      case 'html':
        body.push(...htmlBlocks((token as Tokens.HTML).text, origin));
        break;
      default:
        break; // space, hr, link definitions: no content of their own
    }
  }
  return body;
}

export function markdownBlocks(markdown: string, origin: Origin): FlowBlock[] {
  return blocksOf(new Lexer({ gfm: true }).lex(markdown), origin);
}
