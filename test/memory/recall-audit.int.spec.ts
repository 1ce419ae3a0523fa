/**
 * The principal on record through the facade, and the recall audit: a host's authenticated
 * principal is recorded as `recordedBy` on every command (beside `actor`, the caller's claim),
 * item histories show it, and the audit lists a principal's recalls between two times, paged,
 * with the items each put in the context (an erased one as its marker).
 */
import { openMemledger, type Memledger, type MemoryHandle } from '../../src/memory/index.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import { rejectionOf } from '../support/collect.js';
import { randomBytes } from 'node:crypto';

const alice = { principal: 'alice', via: 'local' } as const;
const agent = { principal: 'agent-7', via: 'key:k7' } as const;

/** A clock that moves one minute a call from 2026-01-01T00:00:00Z. */
function minuteClock() {
  let minute = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 0, minute++));
}

describe('the principal on record and the recall audit', () => {
  let memledger: Memledger;
  let memory: MemoryHandle;
  beforeEach(async () => {
    const keys = openSqliteKeyStore(':memory:', {
      masterKey: masterKeyFromBytes(randomBytes(32)),
      create: true,
    });
    memledger = openMemledger({
      store: openInMemoryStore(),
      keys,
      defaults: { now: minuteClock() },
    });
    memory = await memledger.memory('audited');
  });
  afterEach(() => memledger.close());

  it("records the host's principal beside the caller's claimed actor on every command", async () => {
    const message = await memory.recordMessage({
      speaker: 'u',
      content: 'the vault code is 1234',
      actor: 'claims-to-be-admin',
      recordedBy: alice,
    });
    const recall = await memory.recall({ query: 'vault code', recordedBy: agent, actor: 'bot' });
    const deletion = await memory.deleteContent({
      targets: [message.id],
      reason: 'r',
      recordedBy: alice,
    });
    const plain = await memory.recordMessage({ speaker: 'u', content: 'no principal' });
    expect(message).toMatchObject({ actor: 'claims-to-be-admin', recordedBy: alice });
    expect(recall.recall).toMatchObject({ actor: 'bot', recordedBy: agent });
    expect(deletion.recordedBy).toEqual(alice);
    expect(plain.recordedBy).toBeNull();
    const history = await memory.history(message.id);
    expect(history.recalls).toEqual([
      expect.objectContaining({ recallId: recall.recall.id, actor: 'bot', recordedBy: agent }),
    ]);
    expect(history.deletedBy?.recordedBy).toEqual(alice);
  });

  it('refuses a recordedBy that is not { principal, via }, writing nothing', async () => {
    const error = await rejectionOf(
      memory.recordMessage({
        speaker: 'u',
        content: 'x',
        recordedBy: { principal: 'x', via: 'bogus' },
      }),
    );
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await memory.readEvents()).toEqual([]);
  });

  it("lists one principal's recalls between two times, with what each put in the context", async () => {
    const a = await memory.recordMessage({
      speaker: 'u',
      content: 'alpha fact',
      recordedBy: alice,
    });
    const b = await memory.recordMessage({ speaker: 'u', content: 'beta fact', recordedBy: alice });
    const first = await memory.recall({ query: 'alpha', recordedBy: agent });
    await memory.recall({ query: 'beta', recordedBy: alice });
    const second = await memory.recall({ query: 'beta', recordedBy: agent });
    await memory.deleteAndErase({ targets: [b.id], reason: 'gone', recordedBy: alice });
    const all = await memory.recallAudit({ principal: 'agent-7' });
    expect(all.next).toBeNull();
    expect(all.recalls.map((r) => r.recall.id)).toEqual([first.recall.id, second.recall.id]);
    expect(all.recalls[0]!.items.map((i) => i.event)).toEqual([a]);
    // The erased item shows its marker and the acts, never its words.
    const [erased] = all.recalls[1]!.items;
    expect(erased!.event).toMatchObject({ id: b.id, content: null, erased: true });
    expect(erased!.deleted).toBe(true);
    expect(erased!.erasedBy?.recordedBy).toEqual(alice);
    expect(JSON.stringify(all)).not.toContain('beta fact');
    const between = await memory.recallAudit({
      principal: 'agent-7',
      from: second.recall.timestamp,
      to: '2026-01-01T02:00:00+01:00',
    });
    expect(between.recalls.map((r) => r.recall.id)).toEqual([second.recall.id]);
    expect((await memory.recallAudit({ to: first.recall.timestamp })).recalls).toEqual([]);
    expect((await memory.recallAudit({ principal: 'nobody' })).recalls).toEqual([]);
  });

  it('pages by limit, going on from next', async () => {
    await memory.recordMessage({ speaker: 'u', content: 'paged fact', recordedBy: alice });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await memory.recall({ query: 'paged', recordedBy: agent })).recall.id);
    const seen: string[] = [];
    let pages = 0;
    for (let next: number | null = 0; next !== null; pages++) {
      const page = await memory.recallAudit({ principal: 'agent-7', limit: 2, fromSeq: next });
      seen.push(...page.recalls.map((r) => r.recall.id));
      next = page.next;
    }
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);
  });

  it('refuses a bad query, naming the field', async () => {
    for (const [query, field] of [
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-01-01T00:00:00' }, 'to'],
      [{ principal: '' }, 'principal'],
      [{ limit: 0 }, 'limit'],
      [{ fromSeq: -1 }, 'fromSeq'],
    ] as const) {
      const error = await rejectionOf(memory.recallAudit(query));
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect((error as unknown as { issues: { path: string }[] }).issues[0]!.path).toBe(field);
    }
  });
});
