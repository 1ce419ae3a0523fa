/**
 * The zod validation pipe: parses a body, a query string or a path parameter with a schema from
 * `request-schemas.ts` and hands the handler the parsed value. A failure is `VALIDATION_FAILED`
 * (or the code given, e.g. `INVALID_MEMORY_ID`) listing every failing `path: message`.
 */
import { type PipeTransform } from '@nestjs/common';
import { z } from 'zod';
import { parseOrThrow, type MemoryErrorCode } from '../core/index.js';

/** Options of {@link ZodValidationPipe}. */
export interface ZodPipeOptions {
  /** What is validated, for the message: "message body", "query". */
  readonly what: string;
  /**
   * The name of a single value (a path parameter), so its issues say `memoryId: ...` rather
   * than `(root): ...`.
   * @defaultValue none: the schema validates an object whose keys name themselves
   */
  readonly name?: string;
  /** @defaultValue 'VALIDATION_FAILED' */
  readonly code?: MemoryErrorCode;
}

/** Validates one argument of a route with a zod schema. */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  /**
   * A named value's schema, wrapped once: zod 4 compiles an object schema's parser on its first
   * use, so a wrapper built per request would be compiled again on every request.
   */
  private readonly named: { readonly name: string; readonly schema: z.ZodType } | undefined;

  constructor(
    private readonly schema: S,
    private readonly options: ZodPipeOptions,
  ) {
    const { name } = options;
    this.named = name === undefined ? undefined : { name, schema: z.object({ [name]: schema }) };
  }

  transform(value: unknown): z.output<S> {
    const { what, code } = this.options;
    if (this.named === undefined) return parseOrThrow(this.schema, value, what, code);
    const { name, schema } = this.named;
    const parsed = parseOrThrow(schema, { [name]: value }, what, code) as Record<string, unknown>;
    return parsed[name] as z.output<S>;
  }
}

/** The pipe of a request body. */
export const bodyPipe = <S extends z.ZodType>(schema: S, what: string) =>
  new ZodValidationPipe(schema, { what });

/** The pipe of a query string. */
export const queryPipe = <S extends z.ZodType>(schema: S) =>
  new ZodValidationPipe(schema, { what: 'query' });
