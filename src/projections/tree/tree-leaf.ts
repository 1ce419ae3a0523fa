/**
 * The leaf of an event (memledger/leaf/v1, docs/leaf-v1.md) from what projections receive: the
 * memory, the event's seq and id, and its stored form (wire type, stored schema version, stored
 * fields with sealed words sealed). The encoding is memledger/verify's own, so the server and
 * every verifier compute one leaf from one stored event.
 */
import { MemoryError } from '../../core/index.js';
import type { ProjectedEvent } from '../../store/projection.port.js';
import { leafHashOfText } from '../../tlog/index.js';
import {
  LEAF_EVENT_TYPES,
  isVerifyError,
  leafText,
  utf8,
  type LeafEventType,
  type LeafInput,
} from '../../verify/index.js';

/** What the v1 leaf of `projected`, an event of `memoryId`, binds. */
export function leafInputOf(memoryId: string, projected: ProjectedEvent): LeafInput {
  const { event, stored } = projected;
  return {
    memory: memoryId,
    seq: event.seq,
    id: event.id,
    type: leafType(stored.type, memoryId, event.seq),
    version: stored.version,
    body: stored.body,
  };
}

/** The leaf bytes of `projected`. `EVENT_DECODE_FAILED` when its stored form is no v1 leaf. */
export function leafOf(memoryId: string, projected: ProjectedEvent): Uint8Array {
  return utf8(leafTextOf(memoryId, projected));
}

/** The RFC 9162 leaf hash of `projected`'s leaf. */
export function leafHashOfEvent(memoryId: string, projected: ProjectedEvent): Buffer {
  return leafHashOfText(leafTextOf(memoryId, projected));
}

/** The leaf's text. `EVENT_DECODE_FAILED` when the stored form is no v1 leaf. */
function leafTextOf(memoryId: string, projected: ProjectedEvent): string {
  try {
    return leafText(leafInputOf(memoryId, projected));
  } catch (error) {
    if (!isVerifyError(error)) throw error;
    const { seq } = projected.event;
    throw new MemoryError(
      'EVENT_DECODE_FAILED',
      `The event at seq ${seq} of memory ${memoryId} has no memledger/leaf/v1 encoding: ${error.message}`,
      { details: { memoryId, seq }, cause: error },
    );
  }
}

function leafType(type: string, memoryId: string, seq: number): LeafEventType {
  if ((LEAF_EVENT_TYPES as readonly string[]).includes(type)) return type as LeafEventType;
  throw new MemoryError(
    'EVENT_DECODE_FAILED',
    `The event at seq ${seq} of memory ${memoryId} is stored as type ${JSON.stringify(type)}, not one of ${LEAF_EVENT_TYPES.join(', ')}.`,
    { details: { memoryId, seq, type } },
  );
}
