/** What `redactSecrets` removes from a log line or an error message, and what it keeps. */
import { redactSecrets } from '../../src/http/redact.js';

describe('redactSecrets', () => {
  it.each([
    ['GET /s?access_token=abc&fromSeq=2', 'GET /s?access_token=[redacted]&fromSeq=2'],
    ['GET /s?fromSeq=1&access_token=a%20b', 'GET /s?fromSeq=1&access_token=[redacted]'],
    ['esdb://admin:changeit@db:2113?tls=false', 'esdb://admin:[redacted]@db:2113?tls=false'],
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
    ['authorization=Basic YWRtaW4=', 'authorization=Basic [redacted]'],
    ['Authorization: abc123', 'Authorization: [redacted]'],
    ['{"password":"p@ss\\"w","user":"bob"}', '{"password":[redacted],"user":"bob"}'],
    ['password=hunter2; next=1', 'password=[redacted]; next=1'],
  ])('redacts %j', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    'This server requires a token: send Authorization: Bearer <token>.',
    'The token is not valid for this server.',
    'postgres://user@host/db',
    'the tokenizer failed',
  ])('keeps %j as it is', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});
