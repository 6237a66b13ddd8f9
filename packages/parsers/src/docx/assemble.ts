import type { CodeBlock, FigureBlock, FlowBlock, ListBlock, ListItemBlock, Origin, TableBlock } from '@readpack/reading-package';
import type { Item, ListMark } from './content.js';

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
      list.add(item.list, item.text);
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
      else out.push({ type: 'paragraph', text: item.text, origin });
    }
    out.push(...item.figures);
  }
  return attachCaptions(out);
}

/** Builds nested lists from paragraphs carrying a numbering level, in document order. */
class ListAssembler {
  /** The open lists, outermost first, with the numbering level each holds. */
  private stack: { list: ListBlock; ilvl: number; numId: string; owner?: ListItemBlock }[] = [];

  constructor(
    private readonly out: FlowBlock[],
    private readonly origin: Origin,
  ) {}

  add(mark: ListMark, text: string): void {
    const root = this.stack[0];
    // Another list instance at the outer level is another list (its numbering restarts).
    if (!root || (mark.numId !== root.numId && mark.ilvl <= root.ilvl)) this.openRoot(mark);
    while (this.stack.length > 1 && (this.stack[this.stack.length - 1]?.ilvl ?? 0) > mark.ilvl) this.stack.pop();
    let top = this.top();
    if (mark.ilvl > top.ilvl) {
      const owner = top.list.items[top.list.items.length - 1];
      if (owner) {
        const nested = this.newList(mark);
        (owner.children ??= []).push(nested);
        this.stack.push({ list: nested, ilvl: mark.ilvl, numId: mark.numId, owner });
        top = this.top();
      }
    } else if (top.list.ordered !== mark.ordered) {
      // Bullets after numbers at the same level: a sibling list, not the same one.
      if (this.stack.length === 1 || !top.owner) this.openRoot(mark);
      else {
        const nested = this.newList(mark);
        (top.owner.children ??= []).push(nested);
        this.stack[this.stack.length - 1] = { list: nested, ilvl: mark.ilvl, numId: mark.numId, owner: top.owner };
      }
      top = this.top();
    }
    const item: ListItemBlock = { type: 'list_item', text, origin: this.origin };
    if (mark.marker) item.marker = mark.marker;
    top.list.items.push(item);
  }

  private top(): { list: ListBlock; ilvl: number; numId: string; owner?: ListItemBlock } {
    const top = this.stack[this.stack.length - 1];
    if (!top) throw new Error('list assembler has no open list'); // unreachable: add() opens one first
    return top;
  }

  private openRoot(mark: ListMark): void {
    const list = this.newList(mark);
    this.out.push(list);
    this.stack = [{ list, ilvl: mark.ilvl, numId: mark.numId }];
  }

  private newList(mark: ListMark): ListBlock {
    const list: ListBlock = { type: 'list', ordered: mark.ordered, items: [], origin: this.origin };
    if (mark.ordered && mark.number !== undefined && mark.number !== 1) list.start = mark.number;
    return list;
  }
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
