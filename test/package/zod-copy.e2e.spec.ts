/**
 * The built package carries the part of zod it uses (scripts/bundle.mjs), so a user's process
 * holds two copies of zod: memledger's and the user's own. Zod 4 is made for that; these tests
 * hold memledger's exported schemas to it, as a user composes them with their own `z`.
 */
import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOnce } from '../cli/cli-harness.js';

jest.setTimeout(180_000);
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** Runs `body` in a fresh process beside the user's `z` and memledger's root entry. */
async function withBothCopies(body: string): Promise<unknown> {
  const script = `
const { z } = await import('zod');
const memledger = await import('memledger');
const message = memledger.createMessage({ speaker: 'user', content: 'Sophie is my kid' });
${body}`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
  });
  return JSON.parse(stdout);
}

describe("memledger's schemas beside the user's own zod", () => {
  beforeAll(() => buildOnce());

  it("are another copy's classes, yet instances of the user's z.ZodType", async () => {
    const answer = await withBothCopies(`
const event = memledger.MemoryEvent;
console.log(JSON.stringify([
  event.constructor === z.ZodDiscriminatedUnion,
  event instanceof z.ZodType,
  event instanceof z.ZodDiscriminatedUnion,
]));`);
    expect(answer).toEqual([false, true, true]);
  });

  it("compose into the user's schemas, which parse and refuse through them", async () => {
    const answer = await withBothCopies(`
const Envelope = z.object({ note: z.string(), event: memledger.MemoryEvent });
const parsed = Envelope.parse({ note: 'n', event: message });
const refused = Envelope.safeParse({ note: 'n', event: { ...message, speaker: 42 } });
console.log(JSON.stringify({
  id: parsed.event.id === message.id,
  ok: refused.success,
  paths: refused.error.issues.map((issue) => issue.path.join('.')),
}));`);
    expect(answer).toEqual({ id: true, ok: false, paths: ['event.speaker'] });
  });

  it("convert to JSON Schema through the user's z.toJSONSchema", async () => {
    const answer = (await withBothCopies(`
const schema = z.toJSONSchema(z.array(memledger.MemoryEvent), { unrepresentable: 'any' });
console.log(JSON.stringify({ type: schema.type, kinds: schema.items.oneOf?.length ?? schema.items.anyOf?.length }));`)) as {
      type: string;
      kinds: number;
    };
    expect(answer.type).toBe('array');
    expect(answer.kinds).toBeGreaterThanOrEqual(5);
  });

  it("keep the user's zod configuration (error messages set through z.config)", async () => {
    const answer = await withBothCopies(`
z.config({ customError: () => 'said by the user' });
const result = memledger.MemoryEvent.safeParse({ kind: 'message' });
console.log(JSON.stringify([...new Set(result.error.issues.map((issue) => issue.message))]));`);
    expect(answer).toEqual(['said by the user']);
  });
});
