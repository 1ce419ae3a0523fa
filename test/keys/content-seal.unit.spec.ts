/** Sealing one content field with its item's data key: AES-256-GCM with a synthetic IV. */
import { randomBytes } from 'node:crypto';
import { openText, sealText } from '../../src/keys/index.js';
import { thrownBy } from './key-files.js';

describe('sealText and openText', () => {
  const key = randomBytes(32);
  const aad = 'default/0193a0a0-0000-7000-8000-000000000001/content';

  it('opens what it sealed, including text beyond ASCII', () => {
    for (const text of ['hello', 'Grüße, 世界 🙂', 'x'.repeat(100_000)])
      expect(openText(key, sealText(key, text, aad), aad)).toBe(text);
  });

  it('gives the same output for the same key, text and aad, and another for another text', () => {
    const sealed = sealText(key, 'my address is 1 Main St', aad);
    expect(sealText(key, 'my address is 1 Main St', aad)).toBe(sealed);
    expect(sealText(key, 'my address is 2 Main St', aad)).not.toBe(sealed);
    expect(sealText(randomBytes(32), 'my address is 1 Main St', aad)).not.toBe(sealed);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('Main');
  });

  it('refuses to open under another aad, naming the aad, with EVENT_DECODE_FAILED', () => {
    const sealed = sealText(key, 'secret', aad);
    expect(thrownBy(() => openText(key, sealed, 'default/other/content'))).toMatchObject({
      code: 'EVENT_DECODE_FAILED',
      message: expect.stringContaining('default/other/content') as string,
    });
  });

  it('refuses a tampered ciphertext, another key and malformed strings', () => {
    const sealed = sealText(key, 'secret', aad);
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[14]! ^= 1;
    const tampered = `v1.${bytes.toString('base64url')}`;
    for (const [k, text] of [
      [key, tampered],
      [randomBytes(32), sealed],
      [key, 'v2.' + sealed.slice(3)],
      [key, 'secret'],
      [key, 'v1.'],
      [key, 'v1.!!!!'],
    ] as const)
      expect(thrownBy(() => openText(k, text, aad))).toMatchObject({
        code: 'EVENT_DECODE_FAILED',
        message: expect.stringContaining(aad) as string,
      });
  });

  it('refuses a data key that is not 32 bytes', () => {
    expect(thrownBy(() => sealText(randomBytes(16), 'secret', aad))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
