// Jest's global setup: builds dist/ once, before any test worker starts, so the suites that run
// the real binary (test/cli, test/package, test/mcp) never race two tsc builds into one dist/.
import { buildIfNeeded } from './build-if-needed.mjs';

export default function globalSetup() {
  buildIfNeeded();
}
