/** Boots the memledger application: `npm start` (see docs/http-api.md). */
import { appConfigFromEnv, startServer } from './http/index.js';

try {
  const server = await startServer(await appConfigFromEnv());
  console.log(`memledger listening on ${server.url} (store: ${server.memledger.description})`);
  console.log(server.memledger.verifiableLog.description);
} catch (error) {
  // One line for what a user can fix (a busy port, a bad variable), not a stack trace.
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`memledger: ${typeof code === 'string' ? `[${code}] ` : ''}${message}`);
  process.exitCode = 1;
}
