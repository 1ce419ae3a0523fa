import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { MemoryError } from '../../core/index.js';
import type { Memledger } from '../../memory/index.js';
import { MEMLEDGER } from '../memory.tokens.js';
import { GetLogKeyQuery } from './get-log-key.query.js';

/** Handles {@link GetLogKeyQuery} with the facade's verifiable log. */
@QueryHandler(GetLogKeyQuery)
export class GetLogKeyHandler implements IQueryHandler<GetLogKeyQuery> {
  constructor(@Inject(MEMLEDGER) private readonly memledger: Memledger) {}

  /** The verifier key line. */
  async execute(): Promise<string> {
    const { logKey, name } = this.memledger.verifiableLog;
    if (logKey !== undefined) return logKey;
    throw new MemoryError(
      'LOG_KEY_NOT_CONFIGURED',
      `The log ${name} has no signing key: its checkpoints are unsigned (start the server with MEMLEDGER_LOG_KEY).`,
      { details: { name } },
    );
  }
}
