/**
 * Health for orchestrators (@nestjs/terminus): `GET /health/live` answers 200 while the process
 * serves HTTP; `GET /health/ready` answers 200 when the store answers and the read models of the
 * recently used memories have caught up with their logs, each within `readyTimeoutMs`, and 503
 * otherwise (and from the start of a shutdown). Not under `/api`: no key needed.
 */
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  Inject,
  ServiceUnavailableException,
  UseFilters,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from './access.guard.js';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Memledger } from '../memory/index.js';
import { MEMLEDGER, MEMORY_STORE } from '../nest.js';
import type { MemoryStore } from '../store/event-log.port.js';
import { storeKindOf, untraced } from '../memory/traced/index.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';
import type { HttpResponse } from './http-types.js';
import { InFlightRequests } from './in-flight-requests.js';
import { OperationsMetrics } from './operations-metrics.js';

/** Open memories whose read models readiness brings up to date (the most recently used). */
const READY_MEMORIES = 20;

/** Terminus reports a failed check as a 503 exception carrying its report: answer with it. */
@Catch(ServiceUnavailableException)
export class HealthReportFilter implements ExceptionFilter {
  catch(error: ServiceUnavailableException, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<HttpResponse>().status(503).json(error.getResponse());
  }
}

/** Liveness and readiness. */
@ApiExcludeController()
@PublicRoute()
@UseFilters(HealthReportFilter)
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(MEMORY_STORE) private readonly store: MemoryStore,
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
    @Inject(OperationsMetrics) private readonly operations: OperationsMetrics,
    @Inject(InFlightRequests) private readonly inFlight: InFlightRequests,
    @Inject(HTTP_CONFIG) private readonly config: ResolvedHttpConfig,
  ) {}

  /** 200 while the process serves requests. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** 200 when the store answers and the read models are caught up; 503 otherwise. */
  @Get('ready')
  @HealthCheck()
  ready() {
    const timeout = this.config.readyTimeoutMs;
    return this.health.check([
      () =>
        this.inFlight.draining
          ? this.indicators.check('server').down({ message: 'shutting down' })
          : this.indicators.check('server').up(),
      () =>
        this.indicators
          .check('store')
          .attempt(async () => {
            await this.store.log().lastSeq();
            // The kind only: this endpoint needs no token, and the description names file paths.
            return { store: storeKindOf(this.store) };
          })
          .withTimeout(timeout),
      () =>
        this.indicators
          .check('read_models')
          .attempt(async () => {
            const recent = this.memledger.openMemories().slice(-READY_MEMORIES).map(untraced);
            await Promise.all(recent.map((memory) => memory.catchUp()));
            const lag = await this.operations.lag();
            return { memories: recent.length, lagEvents: lag.events };
          })
          .withTimeout(timeout),
    ]);
  }
}
