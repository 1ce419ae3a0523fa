/** Path parameters shared by the memory routes, validated by the zod pipe. */
import { Param } from '@nestjs/common';
import { MemoryIdParam, EventIdParam } from './request-schemas.js';
import { ZodValidationPipe } from './zod-validation.pipe.js';

/** The `:memoryId` of a route: 1 to 128 of `A-Z a-z 0-9 . _ -`, else `INVALID_MEMORY_ID`. */
export const MemoryIdFromPath = () =>
  Param(
    'memoryId',
    new ZodValidationPipe(MemoryIdParam, {
      what: 'memory id',
      name: 'memoryId',
      code: 'INVALID_MEMORY_ID',
    }),
  );

/** The `:id` of a route: an event id (a UUID), lowercased. */
export const EventIdFromPath = () =>
  Param('id', new ZodValidationPipe(EventIdParam, { what: 'event id', name: 'id' }));
