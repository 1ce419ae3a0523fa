/**
 * rxjs, loaded when the first live stream (`applied$`, `changes()`) is asked for: the library's
 * reads and writes need none of it, and loading it is a sizeable share of `import('memledger')`.
 * Node resolves `import 'rxjs'` (Nest's) to the same CommonJS build `require` loads, so the
 * observables made here are the ones Nest's operators know.
 */
import { createRequire } from 'node:module';
import type * as Rx from 'rxjs';

let loaded: typeof Rx | undefined;

/** The rxjs module, loaded on first use. */
export function rx(): typeof Rx {
  loaded ??= createRequire(import.meta.url)('rxjs') as typeof Rx;
  return loaded;
}
