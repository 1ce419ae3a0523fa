/**
 * The real `memledger` command line, run from the sources (no dist/ needed): the fault suite runs
 * `verify --all` with it. Usage: node --import tsx faults/verify.child.ts --db <file> verify --all
 */
import { main } from '../src/cli/main.js';

await main(['node', 'memledger', ...process.argv.slice(2)]);
