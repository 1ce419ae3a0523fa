/**
 * The store contract against a REAL KurrentDB / EventStoreDB node: `EVENTSTORE_URL` when set
 * (e.g. `esdb://localhost:2113?tls=false` from docker-compose), else a testcontainers node when
 * a container runtime answers, else the suite is registered as skipped with its reason.
 *
 * A real server is shared and keeps its data, while the contract suite expects every test to
 * start on an empty store and uses fixed memory ids ('default', 'alice', ...). So each `open()`
 * gets its own stream prefix, `e2e-<run>-<n>.memory-` (the adapter's `streamPrefix` option):
 * memory 'default' of test n lives in `e2e-<run>-<n>.memory-default`, out of sight of a
 * production store's `memory-` listing on the same server. That namespaces streams
 * and `memoryIds()` while leaving memory ids, and so every error message the contract checks,
 * untouched, which wrapping `log(id)` into `log(`${prefix}-${id}`)` would not.
 */
import { randomUUID } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import { openEventStoreDbStore } from '../../src/store/eventstoredb/eventstoredb.event-log.js';
import { describeEventLogContract } from '../store-contract/index.js';

const IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:latest';
const RUNTIME_PROBE_MS = 5_000;

type Target =
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'container' }
  | { readonly kind: 'skip'; readonly reason: string };

/** Rejects after `ms` unless `promise` settles first; never leaves its timer behind. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function findTarget(): Promise<Target> {
  const url = process.env.EVENTSTORE_URL;
  if (url !== undefined && url.trim() !== '') return { kind: 'url', url: url.trim() };
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await within(getContainerRuntimeClient(), RUNTIME_PROBE_MS, 'the container runtime');
    return { kind: 'container' };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { kind: 'skip', reason: `EVENTSTORE_URL is not set and no container runtime (${why})` };
  }
}

const target = await findTarget();

if (target.kind === 'skip') {
  describe('EventStoreDB (real KurrentDB) store contract', () => {
    console.log(`EventStoreDB e2e suite skipped: ${target.reason}.`);
    it.skip(`runs the store contract against a real KurrentDB [skipped: ${target.reason}]`, () =>
      undefined);
  });
} else {
  const run = randomUUID().slice(0, 8);
  let tests = 0;
  let prefix = '';
  let container: StartedTestContainer | undefined;
  let connectionString = target.kind === 'url' ? target.url : '';

  beforeAll(async () => {
    if (target.kind !== 'container') return;
    const { GenericContainer, Wait } = await import('testcontainers');
    container = await new GenericContainer(IMAGE)
      .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'None' })
      .withExposedPorts(2113)
      .withWaitStrategy(
        Wait.forHttp('/health/live', 2113).forStatusCodeMatching((code) => code < 300),
      )
      .withStartupTimeout(120_000)
      .start();
    connectionString = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });

  const open = () => openEventStoreDbStore({ connectionString }, { streamPrefix: prefix });

  describeEventLogContract(`EventStoreDB (real ${target.kind === 'url' ? 'server' : IMAGE})`, {
    open: async () => {
      prefix = `e2e-${run}-${++tests}.memory-`;
      return open();
    },
    reopen: async (store) => {
      await store.close();
      return open();
    },
    openPeer: async () => open(),
  });
}
