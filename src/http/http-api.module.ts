/**
 * The application module: the memory bounded context plus the HTTP routes, the access guard
 * and the one error filter.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { MemoryModule } from '../nest.js';
import { AccessController } from './access.controller.js';
import { AccessGuard } from './access.guard.js';
import { HealthController } from './health.controller.js';
import { httpAccessProvider } from './http-access.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';
import { InFlightRequests } from './in-flight-requests.js';
import { McpController } from './mcp.controller.js';
import { MemoryErrorFilter } from './memory-error.filter.js';
import { MemoryReadsController } from './memory-reads.controller.js';
import { MemoryStreamController } from './memory-stream.controller.js';
import { MemoryWritesController } from './memory-writes.controller.js';
import { MetricsController } from './metrics.controller.js';
import { NotFoundController } from './not-found.controller.js';
import { OperationsMetrics } from './operations-metrics.js';
import { SseClients } from './sse-clients.js';
import { VerifiableLogController } from './verifiable-log.controller.js';

/** The HTTP API over one memledger store, with its health, metrics and shutdown parts. */
@Module({})
export class HttpApiModule {
  /** The module for one configuration. */
  static forRoot(config: ResolvedHttpConfig): DynamicModule {
    return {
      module: HttpApiModule,
      imports: [
        MemoryModule.forRoot({ ...config.memory, store: config.store }),
        TerminusModule.forRoot({ errorLogStyle: 'json' }),
      ],
      // The stream controller comes first: `events/stream` must win over `events/:id`.
      controllers: [
        MemoryStreamController,
        MemoryWritesController,
        MemoryReadsController,
        VerifiableLogController,
        AccessController,
        McpController,
        HealthController,
        MetricsController,
        NotFoundController,
      ],
      providers: [
        { provide: HTTP_CONFIG, useValue: config },
        SseClients,
        InFlightRequests,
        OperationsMetrics,
        httpAccessProvider,
        { provide: APP_GUARD, useClass: AccessGuard },
        { provide: APP_FILTER, useClass: MemoryErrorFilter },
      ],
    };
  }
}
