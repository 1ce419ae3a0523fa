/**
 * `@opentelemetry/api`, loaded only once something registered with it. Every SDK, propagator or
 * diagnostic logger registers through the API's one global object, so while that object is
 * absent nothing could record what memledger reports: the library then neither loads the API
 * (a noticeable share of `import('memledger')`) nor builds spans. Node resolves the API's ESM
 * import to the same CommonJS module `require` loads, so both see the same registrations.
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

/** Where API 1.x keeps its registrations (`Symbol.for('opentelemetry.js.api.1')`). */
const REGISTRATIONS = Symbol.for('opentelemetry.js.api.1');

let loaded: typeof OtelApi | undefined;

/** The API, loaded now if it was not. */
export function otelApi(): typeof OtelApi {
  loaded ??= createRequire(import.meta.url)('@opentelemetry/api') as typeof OtelApi;
  return loaded;
}

/** The API when anything registered with it (else undefined, and it stays unloaded). */
export function registeredOtelApi(): typeof OtelApi | undefined {
  return loaded ?? (REGISTRATIONS in globalThis ? otelApi() : undefined);
}
