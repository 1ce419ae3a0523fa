/**
 * EventStoreDB stream dumps (test/fixtures/esdb-*.json): the recorded events of some streams as
 * the in-process test server held them when a memledger release wrote them. {@link loadStreamDump}
 * puts them back into a server through the real `@eventstore/db-client`, with the same ids,
 * types, data, custom metadata and revisions, so today's store reads what that release wrote.
 */
import { readFileSync } from 'node:fs';
import { EventStoreDBClient, FORWARDS, NO_STREAM, START, jsonEvent } from '@eventstore/db-client';

/** One recorded event of a dump. */
export interface DumpedEvent {
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  /** Content type `application/json`; a dump holds nothing else yet. */
  readonly isJson: boolean;
  /** The JSON data (written by the client with JSON.stringify, so the same text is its bytes). */
  readonly data: unknown;
  /** The custom metadata as JSON, `null` when the event had none. */
  readonly metadata: unknown;
}

/** A whole dump: stream name -> its events in revision order. */
export interface StreamDump {
  readonly format: string;
  readonly writtenBy: string;
  readonly streams: Readonly<Record<string, readonly DumpedEvent[]>>;
}

/** Reads a dump file. */
export const readStreamDump = (path: string): StreamDump =>
  JSON.parse(readFileSync(path, 'utf8')) as StreamDump;

/**
 * Appends every stream of `dump` to an empty server through `client`, one append per stream,
 * and reads each back: throws unless every event sits at its dumped revision with its id and type.
 */
export async function loadStreamDump(client: EventStoreDBClient, dump: StreamDump): Promise<void> {
  for (const [stream, events] of Object.entries(dump.streams)) {
    const proposed = events.map((event, index) => {
      if (event.revision !== index || !event.isJson) {
        throw new Error(
          `Dumped event ${event.id} of ${stream} is at revision ${event.revision} (expected ${index}), JSON ${event.isJson}: this loader takes dense JSON streams only.`,
        );
      }
      const { id, type, data, metadata } = event;
      return jsonEvent({
        id,
        type,
        data: data as Record<string, unknown>,
        ...(metadata === null ? {} : { metadata: metadata as Record<string, unknown> }),
      });
    });
    await client.appendToStream(stream, proposed, { expectedRevision: NO_STREAM });
    const stored: string[] = [];
    for await (const { event } of client.readStream(stream, {
      direction: FORWARDS,
      fromRevision: START,
    })) {
      stored.push(`${event!.revision} ${event!.id} ${event!.type}`);
    }
    const wanted = events.map((e) => `${e.revision} ${e.id} ${e.type}`);
    if (stored.join('\n') !== wanted.join('\n')) {
      throw new Error(`Stream ${stream} reads back differently from its dump.`);
    }
  }
}
