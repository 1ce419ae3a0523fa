/**
 * How the EventStoreDB store gets its client: from a connection string (parsed for the endpoint
 * and the password that error messages must never repeat) or from the caller.
 */
import { EventStoreDBClient } from '@eventstore/db-client';
import { MemoryError } from '../../core/index.js';
import { parseEndpoint, redact } from './eventstoredb.errors.js';

/**
 * Where the store connects: a connection string (`esdb://`, `esdb+discover://`, TLS on or off;
 * the store then owns the client and disposes it on close), or a client the caller owns.
 */
export type EventStoreDbStoreOptions =
  { readonly connectionString: string } | { readonly client: EventStoreDBClient };

/** A client to use, whether the store owns it, and how errors may name where it connects. */
export interface Connection {
  readonly client: EventStoreDBClient;
  readonly owned: boolean;
  readonly endpoint: string;
  readonly scheme: string;
  readonly secrets: readonly string[];
}

/**
 * The client `options` name: one made from the connection string (the store owns it), or the
 * caller's (named `endpoint` in errors, since a client does not reveal where it connects).
 */
export function connect(options: EventStoreDbStoreOptions, endpoint?: string): Connection {
  if ('client' in options) {
    return {
      client: options.client,
      owned: false,
      endpoint: redact(endpoint ?? 'caller-supplied client'),
      scheme: 'esdb',
      secrets: [],
    };
  }
  const parsed = parseEndpoint(options.connectionString);
  const secrets = parsed.password === undefined ? [] : [parsed.password];
  try {
    const client = EventStoreDBClient.connectionString(options.connectionString);
    return { client, owned: true, endpoint: parsed.endpoint, scheme: parsed.scheme, secrets };
  } catch (cause) {
    // The parser quotes the string it rejects, so its message is redacted before it is repeated.
    const reason = redact(cause instanceof Error ? cause.message : String(cause), secrets);
    throw new MemoryError(
      'STORE_FAILED',
      `Invalid EventStoreDB connection string for ${parsed.endpoint}: ${reason}`,
      { details: { endpoint: parsed.endpoint }, cause },
    );
  }
}
