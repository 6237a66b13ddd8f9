import type { ListBlock, ListItemBlock, Origin, BBox } from '@readpack/reading-package';
import { child, childrenNamed, intAttr, path, type XmlElement } from '../ooxml.js';
import { frameText } from './text.js';

interface Point {
  type: string;
  text: string;
}

/** SmartArt nesting deeper than this is malformed (or a cycle). */
const MAX_DEPTH = 16;

/**
 * SmartArt (`dgm:dataModel` of the diagram's data part) as a bulleted list: its text nodes, nested
 * as the diagram's parent-of connections nest them, in their order. Transition points (the
 * connectors) carry no text; a node without text passes its children up to its parent.
 */
export function diagramList(data: XmlElement | undefined, origin: Origin, place: { page: number; bbox?: BBox }): ListBlock | undefined {
  const points = new Map<string, Point>();
  for (const pt of childrenNamed(child(data, 'dgm:ptLst'), 'dgm:pt')) {
    const id = pt.attrs.modelId;
    if (id !== undefined) points.set(id, { type: pt.attrs.type ?? 'node', text: frameText(child(pt, 'dgm:t')).replace(/\s*\n\s*/g, ' ').trim() });
  }
  const children = new Map<string, { id: string; order: number }[]>();
  for (const cxn of childrenNamed(path(data, 'dgm:cxnLst'), 'dgm:cxn')) {
    if ((cxn.attrs.type ?? 'parOf') !== 'parOf') continue;
    const { srcId, destId } = cxn.attrs;
    if (srcId === undefined || destId === undefined) continue;
    const list = children.get(srcId) ?? [];
    list.push({ id: destId, order: intAttr(cxn.attrs.srcOrd) ?? list.length });
    children.set(srcId, list);
  }
  const root = [...points].find(([, p]) => p.type === 'doc')?.[0];
  const seen = new Set<string>();
  const itemsUnder = (id: string, depth: number): ListItemBlock[] => {
    if (depth > MAX_DEPTH) return [];
    const items: ListItemBlock[] = [];
    for (const { id: childId } of (children.get(id) ?? []).sort((a, b) => a.order - b.order)) {
      const point = points.get(childId);
      if (!point || seen.has(childId) || point.type !== 'node') continue;
      seen.add(childId);
      const nested = itemsUnder(childId, depth + 1);
      if (!point.text) {
        items.push(...nested);
        continue;
      }
      const item: ListItemBlock = { type: 'list_item', text: point.text, origin, ...place };
      if (nested.length > 0) item.children = [{ type: 'list', ordered: false, items: nested, origin, ...place }];
      items.push(item);
    }
    return items;
  };
  let items = root === undefined ? [] : itemsUnder(root, 0);
  // Without a document root to start from, the nodes in their listed order.
  if (items.length === 0) {
    items = [...points.values()].filter((p) => p.type === 'node' && p.text).map((p) => ({ type: 'list_item' as const, text: p.text, origin, ...place }));
  }
  return items.length > 0 ? { type: 'list', ordered: false, items, origin, ...place } : undefined;
}
