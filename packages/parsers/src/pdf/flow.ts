import type { FlowBlock, ListBlock, ListItemBlock, Origin, ParagraphBlock } from '@readpack/reading-package';
import { union } from './geometry.js';
import { documentHeadings, type OutlineTarget } from './headings.js';
import type { PageUnit } from './page-layout.js';
import type { Paragraph } from './paragraphs.js';

type ParagraphUnit = Extract<PageUnit, { kind: 'paragraph' }>;

/**
 * The document's body from its pages' units: headings (outline entries first, then font
 * statistics), list items gathered into (nested) lists, everything else as it comes.
 */
export function flowBlocks(pages: readonly (readonly PageUnit[])[], outline: readonly OutlineTarget[], origin: Origin): FlowBlock[] {
  const levels = documentHeadings(
    pages.map((units) => units.flatMap((u) => (u.kind === 'paragraph' ? [u.paragraph] : []))),
    outline,
  );
  const flow = new BlockFlow(origin);
  for (const unit of pages.flat()) flow.add(unit, unit.kind === 'paragraph' ? levels.get(unit.paragraph) : undefined);
  return flow.end();
}

/**
 * Blocks in reading order from units and their heading levels, handed out in runs (`take`)
 * whenever no list is open: a list goes on across a page break until a unit that is not one of
 * its items, and a finished list of one numbered item turns back into a paragraph.
 */
export class BlockFlow {
  private body: FlowBlock[] = [];
  private lists: ListBuilder;

  constructor(private readonly origin: Origin) {
    this.lists = new ListBuilder(origin, this.body);
  }

  add(unit: PageUnit, level: number | undefined): void {
    if (unit.kind === 'block') {
      this.lists = this.lists.close();
      this.body.push(unit.block);
    } else if (level !== undefined) {
      this.lists = this.lists.close();
      this.body.push({ type: 'heading', level, text: unit.paragraph.text, page: unit.page, bbox: unit.paragraph.bbox, origin: this.origin });
    } else if (unit.paragraph.marker) {
      this.lists.add(unit);
    } else {
      this.lists = this.lists.close();
      this.body.push({ type: 'paragraph', text: unit.paragraph.text, page: unit.page, bbox: unit.paragraph.bbox, origin: this.origin });
    }
  }

  /** Whether every block so far is final (no list open that a later item could still join). */
  get settled(): boolean {
    return this.lists.idle;
  }

  /** The final blocks not handed out yet; only when `settled`. */
  take(): FlowBlock[] {
    if (!this.settled) throw new Error('blocks taken while a list is open');
    const taken = this.body;
    this.body = [];
    this.lists = new ListBuilder(this.origin, this.body);
    return taken;
  }

  /** Closes what is open and hands out the rest. */
  end(): FlowBlock[] {
    this.lists = this.lists.close();
    return this.take();
  }
}

interface Level {
  x0: number;
  list: ListBlock;
}

/**
 * Consecutive list items become one list; an item indented past the current level's marker opens
 * a list nested in the previous item, one indented less closes levels until it fits. An item of
 * the other kind (numbered after bullets) at the same level starts a new list there.
 */
class ListBuilder {
  private readonly stack: Level[] = [];
  /** Top-level lists this builder started, with their place in the body. */
  private readonly opened: { list: ListBlock; at: number }[] = [];

  constructor(
    private readonly origin: Origin,
    private readonly body: FlowBlock[],
  ) {}

  add(unit: ParagraphUnit): void {
    const p = unit.paragraph;
    const marker = p.marker!;
    const x0 = p.bbox[0];
    const tolerance = 0.5 * p.size;
    while (this.stack.length > 0 && x0 < this.top().x0 - tolerance) this.stack.pop();
    const item: ListItemBlock = { type: 'list_item', text: p.text, marker: marker.marker, page: unit.page, bbox: p.bbox, origin: this.origin };
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.stack.push({ x0, list: this.newList(unit, p) });
      this.body.push(this.top().list);
      this.opened.push({ list: this.top().list, at: this.body.length - 1 });
    } else if (x0 > top.x0 + tolerance) {
      const parent = top.list.items[top.list.items.length - 1]!;
      const list = this.newList(unit, p);
      (parent.children ??= []).push(list);
      this.stack.push({ x0, list });
    } else if (top.list.ordered !== marker.ordered) {
      const list = this.newList(unit, p);
      this.stack.pop();
      const parent = this.stack[this.stack.length - 1];
      if (parent) (parent.list.items[parent.list.items.length - 1]!.children ??= []).push(list);
      else {
        this.body.push(list);
        this.opened.push({ list, at: this.body.length - 1 });
      }
      this.stack.push({ x0, list });
    }
    const level = this.top();
    level.list.items.push(item);
    if (level.list.page === unit.page) level.list.bbox = union([level.list.bbox ?? p.bbox, p.bbox]);
  }

  /**
   * Ends the lists in progress; returns a builder for the next ones. A top-level numbered "list"
   * of one item without children was a line starting with a number (`(425) 111-1111`, `0.
   * Auflage`): it goes back to being a paragraph, marker and all.
   */
  close(): ListBuilder {
    if (this.stack.length === 0 && this.opened.length === 0) return this;
    for (const { list, at } of this.opened) {
      const item = list.items[0];
      if (!list.ordered || list.items.length !== 1 || !item || item.children?.length) continue;
      const paragraph: ParagraphBlock = { type: 'paragraph', text: `${item.marker ?? ''} ${item.text}`.trim(), origin: this.origin };
      if (item.page !== undefined) paragraph.page = item.page;
      if (item.bbox) paragraph.bbox = item.bbox;
      this.body[at] = paragraph;
    }
    return new ListBuilder(this.origin, this.body);
  }

  /** Nothing open and nothing to revisit: the body holds only final blocks. */
  get idle(): boolean {
    return this.stack.length === 0 && this.opened.length === 0;
  }

  private top(): Level {
    return this.stack[this.stack.length - 1]!;
  }

  private newList(unit: ParagraphUnit, p: Paragraph): ListBlock {
    const list: ListBlock = { type: 'list', ordered: p.marker!.ordered, items: [], page: unit.page, bbox: p.bbox, origin: this.origin };
    const start = p.marker!.value;
    if (p.marker!.ordered && start !== undefined && start !== 1) list.start = start;
    return list;
  }
}
