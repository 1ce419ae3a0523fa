/**
 * The `memledger` command line run straight from src/ (`node --import tsx test/mcp/memledger-cli.ts
 * ...`), so the stdio spec drives the code under test without building dist/.
 */
import { main } from '../../src/cli/main.js';

await main(process.argv);
