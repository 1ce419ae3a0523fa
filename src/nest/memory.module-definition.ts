/**
 * `MemoryModule.forRoot(options)` / `forRootAsync({ imports, useFactory, inject })`, built by
 * Nest's ConfigurableModuleBuilder; `isGlobal: true` makes the module global.
 */
import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MemoryModuleOptions } from './memory-module.options.js';

export type { MemoryModuleOptions, MemoryRetentionOptions } from './memory-module.options.js';

const definition = new ConfigurableModuleBuilder<MemoryModuleOptions>({
  moduleName: 'Memory',
  optionsInjectionToken: Symbol('MEMORY_MODULE_OPTIONS'),
})
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (module, extras) => ({ ...module, global: extras.isGlobal }))
  .build();

/** The base class giving `MemoryModule` its `forRoot` and `forRootAsync`. */
export const ConfigurableModuleClass = definition.ConfigurableModuleClass;
/** Token of the resolved {@link MemoryModuleOptions}. */
export const MEMORY_MODULE_OPTIONS = definition.MODULE_OPTIONS_TOKEN;
/** Type carrier of `forRoot`'s argument: use as `typeof OPTIONS_TYPE`. */
export const OPTIONS_TYPE = definition.OPTIONS_TYPE;
/** Type carrier of `forRootAsync`'s argument: use as `typeof ASYNC_OPTIONS_TYPE`. */
export const ASYNC_OPTIONS_TYPE = definition.ASYNC_OPTIONS_TYPE;
