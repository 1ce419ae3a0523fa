import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { startRetentionSweeper, type Memledger } from '../memory/index.js';
import type { MemoryModuleOptions } from './memory-module.options.js';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition.js';
import { MEMLEDGER } from './memory.tokens.js';

/** Runs the facade's retention sweeper while the application runs, when `retention` is set. */
@Injectable()
export class MemoryRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('MemoryRetention');
  private stop: (() => Promise<void>) | undefined;

  constructor(
    @Inject(MEMLEDGER) private readonly memledger: Memledger,
    @Inject(MEMORY_MODULE_OPTIONS) private readonly options: MemoryModuleOptions,
  ) {}

  /** Starts sweeping (opt-in). */
  onApplicationBootstrap(): void {
    const retention = this.options.retention;
    if (!retention || this.stop) return;
    this.stop = startRetentionSweeper(this.memledger, {
      ...retention,
      onError: (error) => this.logger.error(`Retention sweep failed: ${String(error)}`),
    });
  }

  /** Stops sweeping and waits for a sweep in progress, before the store closes. */
  async onModuleDestroy(): Promise<void> {
    const stop = this.stop;
    this.stop = undefined;
    await stop?.();
  }
}
