/**
 * Deleted content never reaches an agent through MCP. Reads now already exclude it (invariant
 * 6), but a read as of an earlier seq (`state_at`, `search`) or an item's `history` would show
 * content that was deleted since: here such an item keeps its id, kind, seq, time and author,
 * loses its text, and says which Deletion withheld it. People who must see it use the HTTP API or
 * `memledger audit`.
 */
import type { ContentEvent, Sequenced, StoredDocument, StoredMessage } from '../core/index.js';
import type { MemoryHandle } from '../memory/index.js';

/** A message or document deleted by now: everything but its text. */
export type WithheldItem = (
  Omit<Sequenced<StoredMessage>, 'content'> | Omit<Sequenced<StoredDocument>, 'text'>
) & {
  readonly withheld: true;
  /** The Deletion that removed it. */
  readonly deletedBy: string;
};

/** A content item as MCP returns it: whole, or withheld because it is deleted now. */
export type ReturnedItem = Sequenced<ContentEvent> | WithheldItem;

/** True when `item` was withheld. */
export function isWithheld(item: ReturnedItem): item is WithheldItem {
  return 'withheld' in item;
}

/** `item` without its text, naming the Deletion that removed it. */
export function withheld(item: Sequenced<ContentEvent>, deletionId: string): WithheldItem {
  if (item.kind === 'message') {
    const { content: _content, ...rest } = item;
    return { ...rest, withheld: true, deletedBy: deletionId };
  }
  const { text: _text, ...rest } = item;
  return { ...rest, withheld: true, deletedBy: deletionId };
}

/**
 * `items` with the content of those deleted by now withheld. A read of the state now holds no
 * deleted item, so it is checked only for reads as of a past seq (`asOf` given).
 */
export async function withholdDeleted<T extends Sequenced<ContentEvent>>(
  memory: MemoryHandle,
  items: readonly T[],
  asOf: number | undefined,
): Promise<(T | WithheldItem)[]> {
  if (asOf === undefined) return [...items];
  const out: (T | WithheldItem)[] = [];
  for (const item of items) {
    const { deletedBy } = await memory.getEvent(item.id);
    out.push(deletedBy === null ? item : withheld(item, deletedBy.id));
  }
  return out;
}
