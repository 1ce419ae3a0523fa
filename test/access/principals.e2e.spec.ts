/**
 * Every way in, on the real application: a JWT from an identity provider (a JWKS on loopback),
 * the shared API token (an all-rights key with principal `token`), and a server with nothing
 * configured (every right, nobody on record, loopback only). Each records who it authenticated.
 */
import { startServer } from '../../src/http/index.js';
import { openSse, startTestServer } from '../http/http-app.js';
import {
  signingKey,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../support/jwks-server.js';

const AUDIENCE = 'memledger-e2e';

const send = (url: string, credential: string | undefined, method = 'GET', body?: object) =>
  fetch(url, {
    method,
    headers: {
      ...(credential ? { Authorization: `Bearer ${credential}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe('a JWT from the identity provider', () => {
  let idp: JwksServer;
  let key: SigningKey;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    key = await signingKey('idp-1');
    idp = await startJwksServer([key], AUDIENCE);
    server = await startTestServer({
      access: {
        jwt: { jwksUrl: idp.url, issuer: idp.issuer, audience: AUDIENCE, clockToleranceSec: 0 },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });
  const token = (claims: object, expiresIn?: number) =>
    idp.sign(
      key,
      { sub: 'jane', memledger: { memories: ['jane-*'], rights: ['read', 'write'] }, ...claims },
      expiresIn === undefined ? {} : { expiresIn },
    );

  it('records sub as the principal, via jwt:<issuer>, within the grant of its claim', async () => {
    const jwt = await token({});
    const written = await send(`${server.url}/api/memories/jane-notes/messages`, jwt, 'POST', {
      speaker: 'jane',
      content: 'from the IdP',
    });
    expect(written.status).toBe(201);
    expect(((await written.json()) as { recordedBy: unknown }).recordedBy).toEqual({
      principal: 'jane',
      via: `jwt:${idp.issuer}`,
    });
    const outside = await send(`${server.url}/api/memories/bob/state`, jwt);
    expect(outside.status).toBe(403);
    const me = (await (
      await send(`${server.url}/api/access/me?memory=jane-x`, jwt)
    ).json()) as object;
    expect(me).toMatchObject({ authenticationRequired: true, rights: ['read', 'write'] });
  });

  it('refuses an expired token, a token for another audience, and none at all with 401', async () => {
    const expired = await token({}, Math.floor(Date.now() / 1000) - 5);
    const response = await send(`${server.url}/api/memories/jane-notes/state`, expired);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      code: 'UNAUTHORIZED',
      message: 'The JWT was refused: it has expired.',
    });
    const other = await token({ aud: 'someone-else' });
    expect((await send(`${server.url}/api/memories/jane-notes/state`, other)).status).toBe(401);
    expect((await send(`${server.url}/api/memories/jane-notes/state`, undefined)).status).toBe(401);
  });

  it('ends an event stream when its token expires', async () => {
    const shortLived = await token({}, Math.floor(Date.now() / 1000) + 2);
    const sse = await openSse(
      `${server.url}/api/memories/jane-notes/events/stream?access_token=${shortLived}`,
    );
    expect(sse.response.statusCode).toBe(200);
    await new Promise((resolve) => sse.response.once('end', resolve));
    expect(sse.messages.at(-1)).toEqual({
      event: 'failure',
      data: JSON.stringify({ code: 'UNAUTHORIZED', message: 'The credential expired.' }),
    });
  }, 15_000);
});

describe('the shared API token and a server without authentication', () => {
  it('records the token as principal token, via token', async () => {
    const server = await startTestServer({ apiToken: 'the-shared-token' });
    try {
      const written = await send(
        `${server.url}/api/memories/t/messages`,
        'the-shared-token',
        'POST',
        {
          speaker: 'u',
          content: 'x',
        },
      );
      expect(((await written.json()) as { recordedBy: unknown }).recordedBy).toEqual({
        principal: 'token',
        via: 'token',
      });
      expect(server.authentication).toBe('authentication: the API token');
    } finally {
      await server.close();
    }
  });

  it('records nobody, and says it listens on loopback only', async () => {
    const server = await startTestServer();
    try {
      const written = await send(`${server.url}/api/memories/t/messages`, undefined, 'POST', {
        speaker: 'u',
        content: 'x',
      });
      expect(((await written.json()) as { recordedBy: unknown }).recordedBy).toBeNull();
      expect(server.authentication).toMatch(/none configured, so listening on loopback only/);
    } finally {
      await server.close();
    }
  });

  it('refuses to listen beyond loopback without authentication, before binding', async () => {
    const error = await startServer({
      logger: false,
      host: '0.0.0.0',
      port: 0,
      store: { kind: 'in-memory' },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((error as Error).message).toMatch(
      /Refusing to listen on 0\.0\.0\.0 without authentication.*--insecure/,
    );
  });
});
