/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- supertest bodies are untyped JSON, parsed by the response schemas */
/**
 * Erasure over HTTP, on a real SQLite file with its key store beside it: `POST erasures`,
 * `"erase": true` on a deletion, every read showing the erasure marker and the act, and each
 * refusal answered 409 with its code and nothing written.
 */
import request from 'supertest';
import { RESPONSE_SCHEMAS } from '../../src/http/response-schemas.js';
import { openTestApp, type TestApp } from './http-app.js';

const M = '/api/memories/erasure';
const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';
const CANARY = 'canary-7f3a: my passport number is X1234567';

describe('HTTP erasure on a sealed store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({}, { sealed: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (route: string, body: object) => request(t.server).post(`${M}/${route}`).send(body);
  const get = (path: string) => request(t.server).get(`${M}/${path}`).expect(200);
  const message = async (content: string): Promise<{ id: string; seq: number }> =>
    RESPONSE_SCHEMAS.Message.parse((await post('messages', { speaker: 'user', content })).body);
  /** The seq of the log's last event, to show a refusal wrote nothing. */
  const head = async () => {
    const events = (await get('events?limit=1000')).body as { seq: number }[];
    return events.at(-1)?.seq ?? null;
  };

  it('erases deleted content: 201 with the Erasure, and every read shows the act, not the words', async () => {
    const { id } = await message(CANARY);
    const document = await post('documents', { name: 'passport.txt', text: CANARY });
    const docId = document.body.id as string;
    const deletion = await post('deletions', {
      targets: [id, docId],
      reason: 'GDPR art. 17 request',
    }).expect(201);

    const res = await post('erasures', {
      targets: [id, docId],
      reason: 'GDPR art. 17 request',
      requestedBy: 'dpo@example.com',
      actor: 'privacy-desk',
    }).expect(201);
    const { erasure, cleanup } = RESPONSE_SCHEMAS.ErasureResult.parse(res.body);
    // No reader holds an older snapshot: every file is scrubbed before the answer.
    expect(cleanup).toEqual({ state: 'done' });
    expect(erasure).toMatchObject({
      kind: 'erasure',
      targets: [id, docId],
      reason: 'GDPR art. 17 request',
      requestedBy: 'dpo@example.com',
      actor: 'privacy-desk',
      seq: (deletion.body.seq as number) + 1,
    });

    const lookup = RESPONSE_SCHEMAS.EventLookup.parse((await get(`events/${id}`)).body);
    expect(lookup.event).toMatchObject({ id, kind: 'message', content: null, erased: true });
    expect(lookup.erasedBy?.id).toBe(erasure.id);
    expect(lookup.deletedBy?.id).toBe(deletion.body.id);
    const doc = RESPONSE_SCHEMAS.EventLookup.parse((await get(`events/${docId}`)).body);
    expect(doc.event).toMatchObject({ name: null, text: null, erased: true });
    expect(doc.event).not.toHaveProperty('sha256');

    const history = RESPONSE_SCHEMAS.ItemHistory.parse((await get(`items/${id}/history`)).body);
    expect(history.erasedBy?.id).toBe(erasure.id);

    const now = RESPONSE_SCHEMAS.StatePage.parse((await get('state')).body);
    expect(now.erased[id]?.id).toBe(erasure.id);
    expect(now.erased[docId]?.id).toBe(erasure.id);
    // As of the write, before the deletion, the item is visible, and still shows no words.
    const asOfWrite = RESPONSE_SCHEMAS.StatePage.parse((await get('state?upToSeq=0')).body);
    expect(asOfWrite.visibleMessages).toEqual([
      expect.objectContaining({ id, content: null, erased: true }),
    ]);

    const events = RESPONSE_SCHEMAS.EventPage.parse((await get('events')).body);
    expect(events.map((e) => e.kind)).toEqual(['message', 'document', 'deletion', 'erasure']);
    expect((await get('search?q=passport')).body).toEqual([]);
    for (const path of [
      'events',
      'state',
      'state?upToSeq=1',
      `events/${id}`,
      `items/${docId}/history`,
    ]) {
      expect([path, JSON.stringify((await get(path)).body)]).not.toEqual([
        path,
        expect.stringContaining('canary-7f3a'),
      ]);
    }
  });

  it('deletes and erases in one append with "erase": true, answering { deletion, erasure }', async () => {
    const { id } = await message(`${CANARY} (second)`);
    const res = await post('deletions', {
      targets: [id],
      reason: 'asked to be forgotten',
      requestedBy: 'user-42',
      erase: true,
    }).expect(201);
    const { deletion, erasure } = RESPONSE_SCHEMAS.DeletionAndErasure.parse(res.body);
    expect(RESPONSE_SCHEMAS.DeletionResult.safeParse(res.body).success).toBe(true);
    expect(erasure).toMatchObject({
      targets: [id],
      reason: 'asked to be forgotten',
      requestedBy: 'user-42',
      seq: deletion.seq + 1,
    });
    const lookup = RESPONSE_SCHEMAS.EventLookup.parse((await get(`events/${id}`)).body);
    expect(lookup).toMatchObject({
      deleted: true,
      deletedBy: { id: deletion.id },
      erasedBy: { id: erasure.id },
      event: { content: null, erased: true },
    });
  });

  it('answers a retried "erase too" (same deletion id) with the same two acts, writing nothing', async () => {
    const { id } = await message('retried erase');
    const body = {
      id: '01890000-0000-7000-8000-0000000000aa',
      targets: [id],
      reason: 'retry',
      erase: true,
    };
    const first = (await post('deletions', body).expect(201)).body;
    const before = await head();
    const again = (await post('deletions', body).expect(201)).body;
    expect(again).toEqual(first);
    expect(await head()).toBe(before);
  });

  it('answers a retried erasure (same id) with the stored Erasure, writing nothing', async () => {
    const { id } = await message('retried erasure');
    await post('deletions', { targets: [id], reason: 'first' }).expect(201);
    const body = { id: '01890000-0000-7000-8000-0000000000bb', targets: [id], reason: 'retry' };
    const first = (await post('erasures', body).expect(201)).body;
    const before = await head();
    expect((await post('erasures', body).expect(201)).body).toEqual(first);
    expect(await head()).toBe(before);
  });

  it('still answers a plain deletion with the Deletion alone', async () => {
    const { id } = await message('only hidden');
    const res = await post('deletions', { targets: [id], reason: 'tidy', erase: false }).expect(
      201,
    );
    expect(RESPONSE_SCHEMAS.Deletion.parse(res.body)).toMatchObject({
      kind: 'deletion',
      targets: [id],
    });
    expect(RESPONSE_SCHEMAS.EventLookup.parse((await get(`events/${id}`)).body)).toMatchObject({
      event: { content: 'only hidden' },
      erasedBy: null,
    });
  });

  describe('refusals: 409 with the code, and nothing written', () => {
    let visible: string;
    let erased: string;
    let recall: string;
    beforeAll(async () => {
      visible = (await message('still visible')).id;
      erased = (await message('erased already')).id;
      await post('deletions', { targets: [erased], reason: 'x', erase: true }).expect(201);
      recall = (await post('recalls', { query: 'q', recalled: [visible] }).expect(201)).body.id;
    });

    it.each([
      ['erasing twice', () => erased, 'ALREADY_ERASED'],
      ['erasing visible content', () => visible, 'ERASURE_TARGET_NOT_DELETED'],
      ['erasing a recall', () => recall, 'ERASURE_TARGET_NOT_CONTENT'],
      ['erasing an unknown id', () => UNKNOWN_ID, 'ERASURE_TARGET_UNKNOWN'],
    ])('refuses %s', async (_what, target, code) => {
      const before = await head();
      const res = await post('erasures', { targets: [target()], reason: 'why' }).expect(409);
      expect(RESPONSE_SCHEMAS.Error409.parse(res.body).code).toBe(code);
      expect(res.body.message).toContain(target());
      expect(await head()).toBe(before);
    });

    it('refuses "erase": true on content already deleted, writing neither act', async () => {
      const before = await head();
      const res = await post('deletions', { targets: [erased], reason: 'y', erase: true });
      expect(res.status).toBe(409);
      expect(await head()).toBe(before);
    });

    it('refuses a malformed erasure body and a non-boolean erase with 400', async () => {
      const res = await post('erasures', { targets: [], reason: ' ' }).expect(400);
      const paths = (res.body.issues as { path: string }[]).map((i) => i.path).sort();
      expect(paths).toEqual(['reason', 'targets']);
      const flag = await post('deletions', { targets: [visible], reason: 'r', erase: 'yes' });
      expect(flag.status).toBe(400);
      expect(flag.body.issues).toEqual([expect.objectContaining({ path: 'erase' })]);
    });
  });
});

describe('HTTP erasure on a store without keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 409 ERASURE_UNAVAILABLE to an erasure and to "erase": true, and writes nothing', async () => {
    const server = request(t.server);
    const m = (await server.post(`${M}/messages`).send({ speaker: 'u', content: 'plain' })).body;
    const deletion = {
      targets: [m.id as string],
      reason: 'asked',
    };
    const both = await server
      .post(`${M}/deletions`)
      .send({ ...deletion, erase: true })
      .expect(409);
    expect(RESPONSE_SCHEMAS.Error409.parse(both.body).code).toBe('ERASURE_UNAVAILABLE');
    expect((await server.get(`${M}/events`).expect(200)).body).toHaveLength(1);

    await server.post(`${M}/deletions`).send(deletion).expect(201);
    const res = await server.post(`${M}/erasures`).send(deletion).expect(409);
    expect(RESPONSE_SCHEMAS.Error409.parse(res.body).code).toBe('ERASURE_UNAVAILABLE');
    expect(res.body.message).toMatch(/key/i);
    const events = (await server.get(`${M}/events`).expect(200)).body as { kind: string }[];
    expect(events.map((e) => e.kind)).toEqual(['message', 'deletion']);
    expect((await server.get(`${M}/events/${m.id}`).expect(200)).body.event.content).toBe('plain');
  });
});
