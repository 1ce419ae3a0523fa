/**
 * The application's logger: Nest's own `ConsoleLogger`, as one JSON object per line (the default,
 * for log collectors) or as readable coloured lines for a terminal (`MEMLEDGER_LOG_FORMAT=pretty`).
 * Every line carries the request id and trace id of the request it was written for, and passes
 * through `redactSecrets` last, so no token or password reaches the log whatever wrote it.
 */
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { redactSecrets } from './redact.js';
import { correlationIds } from './request-context.js';

/** How log lines look: JSON objects, or readable lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

/** The levels from `level` up, as Nest names them. */
export function levelsFrom(level: LogLevel): LogLevel[] {
  const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  return order.slice(Math.max(0, order.indexOf(level)));
}

type JsonLine = ReturnType<ConsoleLogger['getJsonLogObject']>;

/** Nest's ConsoleLogger with request and trace ids, and secrets redacted. */
export class AppLogger extends ConsoleLogger {
  constructor(format: LogFormat, logLevels: LogLevel[]) {
    super({
      json: format === 'json',
      colors: format === 'pretty' && process.stdout.isTTY,
      logLevels,
      prefix: 'memledger',
      // JSON params (`{ msg, status, ... }`) become fields of the line rather than a nested object.
      flattenParams: true,
    });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): JsonLine {
    const line = super.getJsonLogObject(message, options);
    // A structured message ({ msg, status, ... }) is spread so collectors can index its fields.
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return { ...line, ...correlationIds() };
    }
    const { msg, ...fields } = message as Record<string, unknown>;
    return { ...line, ...correlationIds(), ...fields, message: msg ?? '' };
  }

  protected override stringifyJsonLogObject(logObject: Record<string, unknown>): string {
    return redactSecrets(super.stringifyJsonLogObject(logObject));
  }

  protected override formatMessage(
    logLevel: LogLevel,
    message: unknown,
    pidMessage: string,
    formattedLogLevel: string,
    contextMessage: string,
    timestampDiff: string,
    params?: Record<string, unknown>,
  ): string {
    const ids = Object.entries(correlationIds()).map(([key, value]) => ` ${key}=${value}`);
    const line = super.formatMessage(
      logLevel,
      message,
      pidMessage,
      formattedLogLevel,
      contextMessage,
      timestampDiff,
      params,
    );
    return redactSecrets(line.replace(/\n$/, `${ids.join('')}\n`));
  }
}
