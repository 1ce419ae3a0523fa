import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { ContentEvent, Deletion, Erasure, Message, Sequenced } from '../../src/core/index.js';
import {
  DeleteContentCommand,
  GetItemHistoryQuery,
  GetMemoryStateQuery,
  RecallCommand,
  RecordMessageCommand,
} from '../../src/nest.js';
import type { ItemHistory } from '../../src/memory/index.js';

/** One turn of a conversation. */
export interface Turn {
  readonly speaker: string;
  readonly content: string;
}

/**
 * What an agent backend does with its memory, only through the CQRS buses: record a
 * conversation, assemble a context (an auditable recall), forget on request, and answer audits.
 * (Explicit `@Inject` tokens let this run under tsx/esbuild too, which emit no decorator metadata.)
 */
@Injectable()
export class ConversationService {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  /** Records each turn, in order, as a Message of the session. */
  async record(
    memoryId: string,
    sessionId: string,
    turns: readonly Turn[],
  ): Promise<Sequenced<Message>[]> {
    const recorded: Sequenced<Message>[] = [];
    for (const turn of turns)
      recorded.push(
        await this.commands.execute(
          new RecordMessageCommand(memoryId, { ...turn, sessionId, source: 'chat' }),
        ),
      );
    return recorded;
  }

  /** The context for a question: the recalled items, with a Recall on record before they are used. */
  async contextFor(
    memoryId: string,
    question: string,
    actor: string,
  ): Promise<Sequenced<ContentEvent>[]> {
    const { items } = await this.commands.execute(
      new RecallCommand(memoryId, { query: question, actor, limit: 3 }),
    );
    return [...items];
  }

  /** Forgets one item by a visible act. */
  forget(
    memoryId: string,
    id: string,
    reason: string,
    requestedBy: string,
  ): Promise<Sequenced<Deletion>> {
    return this.commands.execute(
      new DeleteContentCommand(memoryId, { targets: [id], reason, requestedBy }),
    );
  }

  /**
   * Forgets one item for good: deletes it and erases its words in one append (its key is
   * destroyed; the item's id, seq and both acts stay on record). Needs a key store (app.module).
   */
  erase(
    memoryId: string,
    id: string,
    reason: string,
    requestedBy: string,
  ): Promise<{ deletion: Sequenced<Deletion>; erasure: Sequenced<Erasure> }> {
    return this.commands.execute(
      new DeleteContentCommand(memoryId, { targets: [id], reason, requestedBy }, { erase: true }),
    );
  }

  /** What the memory held right after `seq` (the visible messages' contents; erased ones: null). */
  async knownAt(memoryId: string, seq: number): Promise<(string | null)[]> {
    const state = await this.queries.execute(new GetMemoryStateQuery(memoryId, { upToSeq: seq }));
    return state.visibleMessages.map((m) => m.content);
  }

  /** When an item was written, which recalls used it, and who deleted it and why. */
  historyOf(memoryId: string, id: string): Promise<ItemHistory> {
    return this.queries.execute(new GetItemHistoryQuery(memoryId, id));
  }
}
