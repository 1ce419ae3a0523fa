import { Module, type DynamicModule } from '@nestjs/common';
import { MemoryModule } from '../../src/nest.js';
import { ConversationService } from './conversation.service.js';
import { MemoryActivity } from './memory-activity.handler.js';

/** The example backend: memledger on a SQLite file, a service that uses it, a reaction to its events. */
@Module({})
export class AppModule {
  /** The backend with its memory in the SQLite file at `path`. */
  static forDatabase(path: string): DynamicModule {
    return {
      module: AppModule,
      imports: [MemoryModule.forRoot({ store: { kind: 'sqlite', path } })],
      providers: [ConversationService, MemoryActivity],
    };
  }
}
