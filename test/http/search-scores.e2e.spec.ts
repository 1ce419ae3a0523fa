/**
 * What a person reads in a search answer over HTTP: stemmed matches ("peanuts allergy" finds
 * "Peanut-free"), scores relative to the best hit (1, never 0.000001), and no framework banner.
 */
import request from 'supertest';
import { openTestApp, type TestApp } from './http-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await openTestApp();
});
afterAll(() => app.close());

describe('GET search', () => {
  it('finds stemmed matches and scores them in hundredths relative to the best hit', async () => {
    const path = '/api/memories/food';
    for (const content of [
      'I have a peanut allergy; please keep meals Peanut-free.',
      'Allergies aside, I like spicy food.',
      'The weather is fine today.',
    ])
      await request(app.server)
        .post(`${path}/messages`)
        .send({ speaker: 'user', content })
        .expect(201);
    const response = await request(app.server)
      .get(`${path}/search`)
      .query({ q: 'peanuts allergy' })
      .expect(200);
    const hits = response.body as { score: number; item: { content: string } }[];
    expect(hits.map((hit) => hit.item.content)).toEqual([
      'I have a peanut allergy; please keep meals Peanut-free.',
      'Allergies aside, I like spicy food.',
    ]);
    expect(hits[0]!.score).toBe(1);
    // The second hit matched only "allergy", a word most of this memory holds: the floor.
    expect(hits[1]!.score).toBe(0.01);
  });

  it('sends no X-Powered-By header', async () => {
    const response = await request(app.server).get('/api/memories').expect(200);
    expect(response.headers['x-powered-by']).toBeUndefined();
    const page = await request(app.server).get('/').expect(200);
    expect(page.headers['x-powered-by']).toBeUndefined();
  });
});
