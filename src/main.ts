/** Boots the memledger application: `npm start` (see README "The application"). */
import { httpConfigFromEnv, startServer } from './http/index.js';

const server = await startServer(httpConfigFromEnv());
console.log(`memledger listening on ${server.url} (store: ${server.memledger.description})`);
