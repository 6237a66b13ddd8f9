import type { BBox, FlowBlock, ListBlock, ListItemBlock, Origin } from '@readpack/reading-package';

/** Where a paragraph sits in a list: which list instance, how deep, and what Word or PowerPoint shows. */
export interface ListMark {
  /** The list instance (Word's `w:numId`; one per text frame in a slide). */
  numId: string;
  /** 0-based nesting level. */
  ilvl: number;
  ordered: boolean;
  marker?: string;
  /** The item's number in an ordered list. */
  number?: number;
}

/** Builds nested lists from paragraphs carrying a numbering level, in document order. */
export class ListAssembler {
  /** The open lists, outermost first, with the numbering level each holds. */
  private stack: { list: ListBlock; ilvl: number; numId: string; owner?: ListItemBlock }[] = [];

  constructor(
    private readonly out: FlowBlock[],
    private readonly origin: Origin,
    /** Page and position for paged formats (a slide's text frame), given to every list and item. */
    private readonly place: { page?: number; bbox?: BBox } = {},
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
    const item: ListItemBlock = { type: 'list_item', text, origin: this.origin, ...this.place };
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
    const list: ListBlock = { type: 'list', ordered: mark.ordered, items: [], origin: this.origin, ...this.place };
    if (mark.ordered && mark.number !== undefined && mark.number !== 1) list.start = mark.number;
    return list;
  }
}

