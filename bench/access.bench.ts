/**
 * What authorization costs (issue 31: <= 5 % on the append and state-page paths). The same HTTP
 * requests — an append (`POST messages`) and a state page (`GET state?limit=100` on a memory of
 * `events` events) — against servers on their own SQLite files (synchronous=NORMAL, so fsync does
 * not hide the overhead), one request of each side in turn (who goes first alternates), so
 * machine noise and drift fall on both sides of each comparison:
 * - baseline: no authentication configured (the guard still runs, and lets everyone through);
 * - control: a second such server, whose ratio to the baseline is the harness's noise floor;
 * - access key: a server whose grant store holds `keys` keys; each request carries one (the
 *   guard digests it, finds it and checks the route's right on the memory);
 * - JWT (for information): each request carries an RS256 JWT verified against a JWKS on loopback.
 * Each ratio is the median of the other side over the baseline's median of the same run. Two
 * servers that differ in nothing differ by several per cent end to end (the control says how
 * much), more than the target; so the check itself is also timed alone, in the same run: the
 * guard's work per request (digest the secret, find the key among `keys`, decide the right),
 * as a share of the baseline's request time.
 *
 * Run alone: `node --import tsx bench/access.bench.ts [--quick]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authorize,
  Authenticator,
  openSqliteGrantStore,
  type GrantStore,
} from '../src/access/index.js';
import { startServer, type HttpConfig, type RunningServer } from '../src/http/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { signingKey, startJwksServer } from '../test/support/jwks-server.js';
import { median, report, syntheticLog, timeMs } from './support.js';

interface Side {
  readonly server: RunningServer;
  readonly credential: string | undefined;
}

/** A server on its own file holding `events` events in memory `bench`, with `keys` keys. */
async function side(
  dir: string,
  name: string,
  events: number,
  keys: number,
  config: HttpConfig = {},
): Promise<Side & { readonly secret: string | undefined }> {
  const path = join(dir, `${name}.db`);
  const store = openSqliteStore({ path, synchronous: 'NORMAL' });
  const log = syntheticLog(events, false);
  for (let i = 0; i < events; i += 5000) await store.log('bench').append(log.slice(i, i + 5000));
  await store.close();
  let secret: string | undefined;
  if (keys > 0) {
    const grants = openSqliteGrantStore({ path });
    const by = { principal: 'bench', via: 'local' } as const;
    for (let i = 0; i < keys; i++) {
      const created = await grants.create(
        {
          principal: `agent-${i}`,
          memories: [`user-${i}`, 'team-*', 'bench'],
          rights: ['read', 'write'],
        },
        by,
      );
      secret = created.secret;
    }
    await grants.close();
  }
  const server = await startServer({
    logger: false,
    host: '127.0.0.1',
    port: 0,
    store: { kind: 'sqlite', path, synchronous: 'NORMAL' },
    ...config,
  });
  return { server, credential: secret, secret };
}

function request(s: Side, method: 'GET' | 'POST', path: string, body?: object): Promise<void> {
  return fetch(`${s.server.url}${path}`, {
    method,
    headers: {
      ...(s.credential ? { Authorization: `Bearer ${s.credential}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(async (response) => {
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  });
}

/** Microseconds the guard spends on one request carrying `secret`, over `n` requests. */
async function checkMicros(grants: GrantStore, secret: string, n: number): Promise<number> {
  const authenticator = new Authenticator({ grants });
  let allowed = 0;
  const ms = await timeMs(async () => {
    for (let i = 0; i < n; i++) {
      const principal = await authenticator.authenticate(secret);
      if (authorize(principal, 'bench', i % 2 ? 'write' : 'read')) allowed += 1;
    }
  });
  if (allowed !== n) throw new Error('the bench key was refused');
  return (ms * 1000) / n;
}

/** Medians of `rounds` x `perRound` appends and state pages on `baseline` and `other`, in turns. */
async function compare(baseline: Side, other: Side, perRound: number, rounds: number) {
  const times = {
    baseAppend: [] as number[],
    baseState: [] as number[],
    append: [] as number[],
    state: [] as number[],
  };
  let turn = 0;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) {
      const first = turn++ % 2 === 0;
      for (const s of first ? [baseline, other] : [other, baseline]) {
        const ms = await timeMs(() =>
          request(s, 'POST', '/api/memories/bench/messages', {
            speaker: 'bench',
            content: `round ${round} note ${i}`,
          }),
        );
        (s === baseline ? times.baseAppend : times.append).push(ms);
      }
      for (const s of first ? [other, baseline] : [baseline, other]) {
        const ms = await timeMs(() => request(s, 'GET', '/api/memories/bench/state?limit=100'));
        (s === baseline ? times.baseState : times.state).push(ms);
      }
    }
  }
  return {
    baseAppend: median(times.baseAppend),
    baseState: median(times.baseState),
    append: median(times.append),
    state: median(times.state),
  };
}

export async function benchAccess(events = 20_000, keys = 1000, perRound = 100, rounds = 6) {
  const dir = mkdtempSync(join(tmpdir(), 'memledger-access-bench-'));
  const audience = 'bench';
  const idpKey = await signingKey('bench-1');
  const idp = await startJwksServer([idpKey], audience);
  const sides: Side[] = [];
  try {
    const baseline = await side(dir, 'baseline', events, 0);
    const control = await side(dir, 'control', events, 0);
    const keyed = await side(dir, 'keyed', events, keys);
    const jwtServer = await side(dir, 'jwt', events, 0, {
      access: { jwt: { jwksUrl: idp.url, issuer: idp.issuer, audience } },
    });
    const jwt = {
      server: jwtServer.server,
      credential: await idp.sign(idpKey, {
        sub: 'agent',
        memledger: { memories: ['bench'], rights: ['read', 'write'] },
      }),
    };
    sides.push(baseline, control, keyed, jwt);
    // Warm-up, not counted.
    for (const s of [control, keyed, jwt]) await compare(baseline, s, 20, 1);
    const noise = await compare(baseline, control, perRound, rounds);
    const key = await compare(baseline, keyed, perRound, rounds);
    const token = await compare(baseline, jwt, perRound, rounds);
    const grants = openSqliteGrantStore({ path: join(dir, 'keyed.db') });
    const micros = await checkMicros(grants, keyed.secret!, 100_000);
    await grants.close();
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    const share = (us: number, ms: number) => Math.round((us / (ms * 1000)) * 100_000) / 1000;
    report('access', {
      'events in the memory': events,
      'keys in the grant store': keys,
      'requests per side and path': perRound * rounds,
      'baseline append p50 ms (key run)': key.baseAppend,
      'baseline state page p50 ms (key run)': key.baseState,
      'control (no auth vs baseline): append p50 ratio': ratio(noise.append, noise.baseAppend),
      'control (no auth vs baseline): state page p50 ratio': ratio(noise.state, noise.baseState),
      'access key: append p50 ratio': ratio(key.append, key.baseAppend),
      'access key: state page p50 ratio': ratio(key.state, key.baseState),
      'JWT (info): append p50 ratio': ratio(token.append, token.baseAppend),
      'JWT (info): state page p50 ratio': ratio(token.state, token.baseState),
      'key check alone, µs per request': Math.round(micros * 100) / 100,
      'key check alone, % of the baseline append p50': share(micros, key.baseAppend),
      'key check alone, % of the baseline state page p50': share(micros, key.baseState),
      target: 'access key <= 1.05x on append and state page',
    });
  } finally {
    for (const s of sides) await s.server.close();
    await idp.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const quick = process.argv.includes('--quick');
  await benchAccess(quick ? 5000 : 20_000, quick ? 100 : 1000, quick ? 50 : 100, quick ? 3 : 6);
}
