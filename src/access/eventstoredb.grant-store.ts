/**
 * The grant store on EventStoreDB/KurrentDB: a stream of its own (`memledger-access`) of
 * `KeyGranted` and `KeyRevoked` events, so access changes are events on record like any other.
 * Each instance reads the stream on open and then follows it with a catch-up subscription
 * (subscribing again after a dropped connection), so a revocation reaches every instance as
 * soon as the node delivers it.
 */
import {
  EventStoreDBClient,
  FORWARDS,
  START,
  jsonEvent,
  type ResolvedEvent,
  type StreamSubscription,
} from '@eventstore/db-client';
import { MemoryError, parseOrThrow, RecordedBy } from '../core/index.js';
import { newKeyId, newKeySecret, secretDigest } from './access-key.js';
import { GrantIndex } from './grant-index.js';
import {
  NewKey,
  type AccessKey,
  type CreatedKey,
  type GrantRecord,
  type GrantStore,
} from './grant-store.port.js';
import { MemoryPatterns } from './memory-pattern.js';
import { Rights } from './rights.js';

/** The stream of every grant and revocation. */
export const ACCESS_STREAM = 'memledger-access';

/** Where the grant store connects: a connection string (it owns the client) or a client. */
export type EventStoreDbGrantStoreOptions = (
  { readonly connectionString: string } | { readonly client: EventStoreDBClient }
) & {
  /** Pause before following the stream again after the subscription dropped. @defaultValue 500 */
  readonly resubscribeDelayMs?: number;
};

/** Opens the grant store on EventStoreDB; `ready()` resolves once the stream was read. */
export function openEventStoreDbGrantStore(options: EventStoreDbGrantStoreOptions): GrantStore {
  const owned = 'connectionString' in options;
  const client = owned
    ? EventStoreDBClient.connectionString(options.connectionString)
    : options.client;
  const where = `EventStoreDB stream ${ACCESS_STREAM}`;
  const index = new GrantIndex();
  let last: bigint | undefined;
  let subscription: StreamSubscription | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  const apply = (resolved: ResolvedEvent) => {
    const event = resolved.event;
    if (event === undefined || (last !== undefined && event.revision <= last)) return;
    last = event.revision;
    applyEvent(index, event.type, event.data);
  };
  /** Reads what the stream holds after `last`. */
  const readNew = async () => {
    try {
      const read = client.readStream(ACCESS_STREAM, {
        fromRevision: last === undefined ? START : last + 1n,
        direction: FORWARDS,
      });
      for await (const resolved of read as AsyncIterable<ResolvedEvent>) apply(resolved);
    } catch (error) {
      if ((error as { type?: unknown }).type !== 'stream-not-found') throw failed('read', error);
    }
  };
  const follow = () => {
    if (closed) return;
    subscription = client.subscribeToStream(ACCESS_STREAM, {
      fromRevision: last === undefined ? START : last,
    });
    subscription.on('data', apply);
    subscription.on('error', () => {
      if (closed) return;
      void subscription?.unsubscribe().catch(() => undefined);
      retry = setTimeout(follow, options.resubscribeDelayMs ?? 500);
      retry.unref();
    });
  };
  const ready = readNew().then(follow);
  ready.catch(() => undefined);

  const append = async (type: string, data: Record<string, unknown>) => {
    try {
      await client.appendToStream(ACCESS_STREAM, jsonEvent({ type, data }));
    } catch (error) {
      throw failed(type === 'KeyGranted' ? 'grant' : 'revoke', error);
    }
    await readNew();
  };

  return {
    description: where,
    ready: () => ready,
    async create(input: NewKey, by: RecordedBy): Promise<CreatedKey> {
      const checked = parseOrThrow(NewKey, input, 'access key');
      await ready;
      const secret = newKeySecret();
      const id = newKeyId();
      await append('KeyGranted', {
        keyId: id,
        ...checked,
        secretSha256: secretDigest(secret),
        createdAt: new Date().toISOString(),
        createdBy: by,
      });
      return { key: index.require(id, where), secret };
    },
    async revoke(keyId: string, by: RecordedBy): Promise<AccessKey> {
      await ready;
      await readNew();
      if (index.require(keyId, where).revokedAt === null) {
        await append('KeyRevoked', { keyId, revokedAt: new Date().toISOString(), revokedBy: by });
      }
      return index.require(keyId, where);
    },
    keys: () => index.keys(),
    keyOfSecret: (secret) => index.keyOfSecret(secret),
    get everGranted() {
      return index.everGranted;
    },
    onRevoked: (listener) => index.onRevoked(listener),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      await subscription?.unsubscribe().catch(() => undefined);
      if (owned) await client.dispose();
    },
  };
}

/** Applies one stored event; one that does not parse (written by hand, say) grants nothing. */
function applyEvent(index: GrantIndex, type: string, data: unknown): void {
  const fields = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  if (type === 'KeyRevoked' && typeof fields.keyId === 'string') {
    index.revoke({
      keyId: fields.keyId,
      revokedAt: String(fields.revokedAt),
      revokedBy: RecordedBy.safeParse(fields.revokedBy).data ?? null,
    });
    return;
  }
  if (type !== 'KeyGranted') return;
  const record = grantOf(fields);
  if (record) index.grant(record);
}

function grantOf(fields: Record<string, unknown>): GrantRecord | undefined {
  const principal = NewKey.shape.principal.safeParse(fields.principal);
  const memories = MemoryPatterns.safeParse(fields.memories);
  const rights = Rights.safeParse(fields.rights);
  const { keyId, secretSha256, createdAt } = fields;
  if (!principal.success || !memories.success || !rights.success) return undefined;
  if (typeof keyId !== 'string' || typeof secretSha256 !== 'string') return undefined;
  return {
    key: {
      id: keyId,
      principal: principal.data,
      memories: memories.data,
      rights: rights.data,
      createdAt: String(createdAt),
      createdBy: RecordedBy.safeParse(fields.createdBy).data ?? null,
    },
    secretSha256,
  };
}

/** A client failure as `STORE_UNAVAILABLE`; the driver's message is kept as the cause only. */
function failed(what: string, cause: unknown): MemoryError {
  return new MemoryError(
    'STORE_UNAVAILABLE',
    `Access ${what} on EventStoreDB stream ${ACCESS_STREAM} failed; is the node reachable?`,
    { cause },
  );
}
