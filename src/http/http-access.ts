/**
 * The application's access control: the grant store that goes with its event store (or the one
 * it was given), the JWT verifier when an identity provider is configured, and the
 * {@link Authenticator} over them with the API token. Opened before the server answers; the
 * grant store it opened is closed on shutdown.
 */
import type { FactoryProvider, OnApplicationShutdown } from '@nestjs/common';
import {
  Authenticator,
  jwtVerifier,
  openGrantStore,
  type GrantStore,
  type GrantStoreConfig,
} from '../access/index.js';
import { MEMORY_STORE } from '../nest.js';
import type { StoreConfig } from '../store/open-store.js';
import { HTTP_CONFIG, type ResolvedHttpConfig } from './http-config.js';

/** The grant store that goes with an event store configuration. */
export function grantStoreConfigOf(store: StoreConfig, pollMs?: number): GrantStoreConfig {
  if (store.kind === 'sqlite' && store.path !== ':memory:') {
    return { kind: 'sqlite', path: store.path, ...(pollMs === undefined ? {} : { pollMs }) };
  }
  if (store.kind === 'eventstoredb') {
    return { kind: 'eventstoredb', connectionString: store.connectionString };
  }
  return { kind: 'in-memory' };
}

/**
 * Holds the application's {@link Authenticator}. Provided by {@link HttpAccess.open} (an async
 * factory, so it is open before anything, the OpenAPI document included, asks for it).
 */
export class HttpAccess implements OnApplicationShutdown {
  private constructor(
    /** The authenticator. */
    readonly authenticator: Authenticator,
    private owned: GrantStore | undefined,
  ) {}

  /** Opens the grant store (reading every record) and the JWT verifier. */
  static async open(config: ResolvedHttpConfig): Promise<HttpAccess> {
    const { access, apiToken, store } = config;
    const jwt = access.jwt === undefined ? undefined : jwtVerifier(access.jwt);
    const owned =
      access.grants === undefined
        ? await openGrantStore(grantStoreConfigOf(store, access.grantsPollMs))
        : undefined;
    const grants = access.grants ?? owned!;
    const authenticator = new Authenticator({
      grants,
      apiToken,
      jwt,
      jwtIssuer: access.jwt?.issuer,
    });
    return new HttpAccess(authenticator, owned);
  }

  /** Closes the grant store it opened. */
  async onApplicationShutdown(): Promise<void> {
    const owned = this.owned;
    this.owned = undefined;
    await owned?.close();
  }
}

/**
 * Provides {@link HttpAccess} from the application's configuration. It waits for the event store
 * (`MEMORY_STORE`): the grant store lives in the same SQLite file, and a start the store refuses
 * (a wrong master key, a missing key store) must leave that file as it found it.
 */
export const httpAccessProvider: FactoryProvider<Promise<HttpAccess>> = {
  provide: HttpAccess,
  inject: [HTTP_CONFIG, MEMORY_STORE],
  useFactory: (config: ResolvedHttpConfig) => HttpAccess.open(config),
};
