import { Module, type DynamicModule } from '@nestjs/common';
import { MemoryModule } from '../../src/nest.js';
import { ConversationService } from './conversation.service.js';
import { MemoryActivity } from './memory-activity.handler.js';

/** The example backend: memledger on a SQLite file, a service that uses it, a reaction to its events. */
@Module({})
export class AppModule {
  /**
   * The backend with its memory in the SQLite file at `path`, content sealed with the key store
   * beside it (`<path>.keys`, master key `MEMLEDGER_MASTER_KEY` or the file `<path>.master-key`,
   * created on first start): without keys, content is stored in plain text and cannot be erased.
   */
  static forDatabase(path: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MemoryModule.forRoot({ store: { kind: 'sqlite', path, keys: { kind: 'beside', path } } }),
      ],
      providers: [ConversationService, MemoryActivity],
    };
  }
}
