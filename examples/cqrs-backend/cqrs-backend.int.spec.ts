/** Runs the example backend on a temp SQLite file, as `main.ts` does. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { ConversationService } from './conversation.service.js';
import { MemoryActivity } from './memory-activity.handler.js';

let dir: string;
let app: INestApplicationContext;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-example-'));
  app = await NestFactory.createApplicationContext(AppModule.forDatabase(join(dir, 'backend.db')), {
    logger: false,
  });
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the cqrs-backend example', () => {
  it('records a conversation, recalls from it, forgets and erases on request, and reacts to every memory event', async () => {
    const conversation = app.get(ConversationService);
    const [secret, schedule] = await conversation.record('support', 'session-1', [
      { speaker: 'user', content: 'My staging password is hunter2.' },
      { speaker: 'assistant', content: 'Noted. Staging deploys run on Fridays.' },
    ]);
    expect(
      (await conversation.contextFor('support', 'staging password', 'agent')).map((i) => i.id),
    ).toContain(secret!.id);

    const deletion = await conversation.forget(
      'support',
      secret!.id,
      'credential shared in chat',
      'user',
    );
    const after = await conversation.contextFor('support', 'staging password', 'agent');
    expect(after.map((i) => i.id)).not.toContain(secret!.id);
    expect(after.map((i) => i.id)).toEqual([schedule!.id]);

    expect(await conversation.knownAt('support', secret!.seq)).toEqual([
      'My staging password is hunter2.',
    ]);
    const history = await conversation.historyOf('support', secret!.id);
    expect(history.recalls).toEqual([
      expect.objectContaining({ query: 'staging password', actor: 'agent' }),
    ]);
    expect(history.deletedBy).toEqual(deletion);

    // Erasure works as configured: the words are gone, even as of a seq before the erasure.
    const { erasure } = await conversation.erase('support', schedule!.id, 'outdated', 'user');
    // (The password was only deleted: an audit still reads it as of then. Erase it too if it must go.)
    expect(await conversation.knownAt('support', schedule!.seq)).toEqual([
      'My staging password is hunter2.',
      null,
    ]);
    expect((await conversation.historyOf('support', schedule!.id)).erasedBy).toEqual(erasure);

    const activity = app.get(MemoryActivity);
    await waitUntil(() => activity.counts.erasure === 1);
    expect(activity.counts).toEqual({
      message: 2,
      document: 0,
      recall: 2,
      deletion: 2,
      erasure: 1,
    });
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
