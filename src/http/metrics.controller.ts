/**
 * `GET /metrics`: every metric of the process in the Prometheus text exposition format, for a
 * Prometheus scrape (docs/operations.md lists the names). Not under `/api`, so no key
 * guards it: expose it on an interface only your monitoring reaches.
 */
import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PublicRoute } from './access.guard.js';
import { appMetrics } from './app-telemetry.js';
import type { HttpRequest, HttpResponse } from './http-types.js';

/** The Prometheus scrape endpoint. */
@ApiExcludeController()
@PublicRoute()
@Controller('metrics')
export class MetricsController {
  /** The exposition text (`text/plain; version=0.0.4`). */
  @Get()
  scrape(@Req() request: HttpRequest, @Res() response: HttpResponse): void {
    appMetrics().prometheus.getMetricsRequestHandler(request, response);
  }
}
