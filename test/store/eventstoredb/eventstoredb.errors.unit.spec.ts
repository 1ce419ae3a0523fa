/** How the EventStoreDB store names endpoints and translates vendor errors, without a server. */
import {
  StreamDeletedError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { MemoryError } from '../../../src/core/index.js';
import {
  parseEndpoint,
  redact,
  translateEsdbError,
} from '../../../src/store/eventstoredb/eventstoredb.errors.js';

const scope = (closed = false) => ({
  endpoint: 'node1:2113',
  secrets: ['hunter2'],
  isClosed: () => closed,
});

describe('EventStoreDB connection strings', () => {
  it.each([
    ['esdb://127.0.0.1:2113?tls=false', 'esdb', '127.0.0.1:2113', undefined],
    ['esdb://admin:changeit@localhost:2113?tls=true', 'esdb', 'localhost:2113', 'changeit'],
    [
      'esdb+discover://ops:p%40ss@cluster.example.com?tlsVerifyCert=false',
      'esdb+discover',
      'cluster.example.com:2113',
      'p@ss',
    ],
    ['esdb://a:2113,b:2114,c?nodePreference=leader', 'esdb', 'a:2113,b:2114,c:2113', undefined],
  ])('reads %s as scheme, hosts and password', (text, scheme, endpoint, password) => {
    expect(parseEndpoint(text)).toEqual({ scheme, endpoint, password });
  });

  it('redacts user:pass@ and known secrets from any text', () => {
    expect(redact('cannot reach esdb://admin:changeit@host:2113 now')).toBe(
      'cannot reach esdb://host:2113 now',
    );
    expect(redact('password hunter2 leaked', ['hunter2'])).toBe('password *** leaked');
  });
});

describe('EventStoreDB error translation', () => {
  it('maps an unreachable node (client error or raw grpc code 14 / 4) to STORE_UNAVAILABLE naming the endpoint', () => {
    const raw14 = Object.assign(new Error('14 UNAVAILABLE: hunter2 refused'), { code: 14 });
    const raw4 = Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 });
    for (const vendor of [new UnavailableError(undefined, 'gone'), raw14, raw4]) {
      const error = translateEsdbError(vendor, 'append on memory default', scope());
      expect(error.code).toBe('STORE_UNAVAILABLE');
      expect(error.message).toContain('node1:2113');
      expect(error.message).not.toContain('hunter2');
      expect(error.cause).toBe(vendor);
    }
  });

  it('maps other vendor errors to STORE_FAILED, a wrong expected version to EXPECTED_SEQ_MISMATCH, and anything after close to STORE_CLOSED', () => {
    const deleted = StreamDeletedError.fromStreamName('memory-x');
    const wev = new WrongExpectedVersionError(undefined, {
      streamName: 'memory-x',
      expected: 1n,
      current: 2n,
    });
    expect(translateEsdbError(deleted, 'read', scope()).code).toBe('STORE_FAILED');
    expect(translateEsdbError(wev, 'append', scope()).code).toBe('EXPECTED_SEQ_MISMATCH');
    expect(translateEsdbError(deleted, 'read', scope(true)).code).toBe('STORE_CLOSED');
  });

  it('passes memledger errors through untouched', () => {
    const own = new MemoryError('ID_CONFLICT', 'Event x is already in memory default.');
    expect(translateEsdbError(own, 'append', scope(true))).toBe(own);
  });
});
