/**
 * Who runs a command that works on the store itself: the command line vouches for its own user
 * (`via: local`), as a host application does (docs/access.md).
 */
import { userInfo } from 'node:os';
import type { RecordedBy } from '../core/index.js';

/** The operating system's user running this process, as the `recordedBy` of what it writes. */
export function operator(): RecordedBy {
  let name = 'unknown';
  try {
    name = userInfo().username || name;
  } catch {
    // No user entry (a container's arbitrary uid): recorded as unknown.
  }
  return { principal: name, via: 'local' };
}
