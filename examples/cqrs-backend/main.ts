/**
 * Runs the example backend once: `npx tsx examples/cqrs-backend/main.ts` (SQLite file at
 * `MEMLEDGER_DB`, default `./data/cqrs-backend.db`).
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { ConversationService } from './conversation.service.js';
import { MemoryActivity } from './memory-activity.handler.js';

const app = await NestFactory.createApplicationContext(
  AppModule.forDatabase(process.env.MEMLEDGER_DB ?? './data/cqrs-backend.db'),
);
const conversation = app.get(ConversationService);
const turns = await conversation.record('support', 'session-1', [
  { speaker: 'user', content: 'My staging password is hunter2.' },
  { speaker: 'assistant', content: 'Noted. Staging deploys run on Fridays.' },
]);
const context = await conversation.contextFor('support', 'staging password', 'support-agent');
console.log(
  'context:',
  context.map((item) => item.id),
);
await conversation.forget('support', turns[0]!.id, 'credential shared in chat', 'user');
console.log(
  'after forgetting:',
  (await conversation.contextFor('support', 'staging password', 'support-agent')).length,
  'items',
);
console.log(
  'history:',
  JSON.stringify(await conversation.historyOf('support', turns[0]!.id), null, 2),
);
const { erasure } = await conversation.erase('support', turns[1]!.id, 'outdated', 'user');
console.log(
  'erased for good at seq',
  erasure.seq,
  '- its words read:',
  await conversation.knownAt('support', turns[1]!.seq),
);
console.log('events seen:', app.get(MemoryActivity).counts);
await app.close();
