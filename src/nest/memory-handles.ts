import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_MEMORY_ID } from '../core/index.js';
import type { Memledger, MemoryHandle } from '../memory/index.js';
import type { MemoryModuleOptions } from './memory-module.options.js';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition.js';
import { MEMLEDGER } from './memory.tokens.js';

/** Opens the memory a command or query names; `undefined` names the module's default memory. */
@Injectable()
export class MemoryHandles {
  private readonly defaultMemoryId: string;

  constructor(
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
    @Inject(MEMORY_MODULE_OPTIONS) options: MemoryModuleOptions,
  ) {
    this.defaultMemoryId = options.defaultMemoryId ?? DEFAULT_MEMORY_ID;
  }

  /** The memory `memoryId` (its read models started); `INVALID_MEMORY_ID` for a bad id. */
  get(memoryId: string | undefined): Promise<MemoryHandle> {
    return this.memledger.memory(memoryId ?? this.defaultMemoryId);
  }
}
