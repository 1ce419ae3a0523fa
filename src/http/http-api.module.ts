/**
 * The application module: the memory bounded context plus the HTTP routes, the token guard and
 * the one error filter.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { MemoryModule } from '../nest.js';
import { ApiTokenGuard } from './api-token.guard.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';
import { McpController } from './mcp.controller.js';
import { MemoryErrorFilter } from './memory-error.filter.js';
import { MemoryReadsController } from './memory-reads.controller.js';
import { MemoryStreamController } from './memory-stream.controller.js';
import { MemoryWritesController } from './memory-writes.controller.js';
import { NotFoundController } from './not-found.controller.js';

/** The HTTP API over one memledger store. */
@Module({})
export class HttpApiModule {
  /** The module for one configuration. */
  static forRoot(config: ResolvedHttpConfig): DynamicModule {
    return {
      module: HttpApiModule,
      imports: [MemoryModule.forRoot({ ...config.memory, store: config.store })],
      // The stream controller comes first: `events/stream` must win over `events/:id`.
      controllers: [
        MemoryStreamController,
        MemoryWritesController,
        MemoryReadsController,
        McpController,
        NotFoundController,
      ],
      providers: [
        { provide: HTTP_CONFIG, useValue: config },
        { provide: APP_GUARD, useClass: ApiTokenGuard },
        { provide: APP_FILTER, useClass: MemoryErrorFilter },
      ],
    };
  }
}
