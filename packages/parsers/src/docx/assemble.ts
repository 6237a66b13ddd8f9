import type { CodeBlock, FigureBlock, FlowBlock, Origin, TableBlock } from '@readpack/reading-package';
import type { Item } from './content.js';
import { ListAssembler } from './lists.js';

/**
 * Turns the items read from the body into blocks: list paragraphs become nested lists,
 * consecutive code paragraphs one code block, and captions move onto their figure or table.
 */
export function assembleBody(items: Item[], origin: Origin): FlowBlock[] {
  const out: FlowBlock[] = [];
  let list: ListAssembler | undefined;
  let code: CodeBlock | undefined;
  for (const item of items) {
    if (item.kind === 'table') {
      list = code = undefined;
      out.push(item.block, ...item.figures);
      continue;
    }
    const visible = item.text.trim() !== '';
    // Empty paragraphs are spacing: they neither show nor end a list.
    if (!visible && item.figures.length === 0) continue;
    if (item.list && visible) {
      code = undefined;
      list ??= new ListAssembler(out, origin);
      list.add(item.list, item.text.trim());
      if (item.figures.length > 0) {
        out.push(...item.figures);
        list = undefined;
      }
      continue;
    }
    list = undefined;
    if (item.code) {
      if (code) code.text += `\n${item.text}`;
      else {
        code = { type: 'code', text: item.text, origin };
        out.push(code);
      }
      out.push(...item.figures);
      continue;
    }
    code = undefined;
    if (item.caption) {
      // Figures first, so a caption written in the picture's own paragraph lands on it.
      out.push(...item.figures);
      if (visible) out.push({ type: 'caption', text: item.text.trim(), origin });
      continue;
    }
    if (visible) {
      if (item.heading !== undefined) out.push({ type: 'heading', level: item.heading, text: item.text.replace(/\s+/g, ' ').trim(), origin });
      else out.push({ type: 'paragraph', text: item.text.trim(), origin });
    }
    out.push(...item.figures);
  }
  return attachCaptions(out);
}

type Captioned = FigureBlock | TableBlock;

function uncaptioned(block: FlowBlock | undefined, type: 'figure' | 'table'): Captioned | undefined {
  return block?.type === type && block.caption === undefined ? block : undefined;
}

/**
 * A caption paragraph belongs to the figure or table right before or after it. Word puts figure
 * captions below and table captions above by default, so that is the order tried, unless the
 * caption's own words ("Table 3", "Figure 2") say which it is.
 */
function attachCaptions(blocks: FlowBlock[]): FlowBlock[] {
  const out: FlowBlock[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i];
    if (!block) continue;
    if (block.type !== 'caption') {
      out.push(block);
      continue;
    }
    const before = out[out.length - 1];
    const after = blocks[i + 1];
    const tries: (() => Captioned | undefined)[] = /^\s*(table|tab\.)/i.test(block.text)
      ? [() => uncaptioned(after, 'table'), () => uncaptioned(before, 'table')]
      : /^\s*(figure|fig\.|image|picture|photo)/i.test(block.text)
        ? [() => uncaptioned(before, 'figure'), () => uncaptioned(after, 'figure')]
        : [() => uncaptioned(before, 'figure'), () => uncaptioned(after, 'table'), () => uncaptioned(before, 'table'), () => uncaptioned(after, 'figure')];
    let target: Captioned | undefined;
    for (const attempt of tries) {
      target = attempt();
      if (target) break;
    }
    if (target) target.caption = block.text;
    else out.push(block);
  }
  return out;
}
