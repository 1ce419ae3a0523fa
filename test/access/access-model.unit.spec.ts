/** The access model alone: rights, memory patterns, key secrets, and the pure decisions. */
import {
  digestsMatch,
  looksLikeKeySecret,
  newKeyId,
  newKeySecret,
  secretDigest,
  tokensMatch,
} from '../../src/access/access-key.js';
import { keyPrincipal } from '../../src/access/authenticator.js';
import {
  parsePatternList,
  patternCovers,
  patternMatches,
} from '../../src/access/memory-pattern.js';
import {
  authorize,
  forbidden,
  isLoopback,
  mayGrant,
  rightsOn,
  TOKEN_PRINCIPAL,
  UNAUTHENTICATED,
  type Principal,
} from '../../src/access/principal.js';
import { parseRightsList, RIGHTS } from '../../src/access/rights.js';
import { isMemoryError } from '../../src/core/index.js';

const agent: Principal = {
  recordedBy: { principal: 'agent-7', via: 'key:abc' },
  grants: [
    { memories: ['user-42', 'team-*'], rights: ['read', 'recall'] },
    { memories: ['scratch'], rights: ['write', 'delete'] },
  ],
};

describe('memory patterns', () => {
  it('match an exact id, a prefix wildcard and everything', () => {
    expect(patternMatches('user-42', 'user-42')).toBe(true);
    expect(patternMatches('user-42', 'user-420')).toBe(false);
    expect(patternMatches('team-*', 'team-a')).toBe(true);
    expect(patternMatches('team-*', 'team-')).toBe(true);
    expect(patternMatches('team-*', 'teams')).toBe(false);
    expect(patternMatches('*', 'anything')).toBe(true);
  });

  it('say which patterns cover which', () => {
    expect(patternCovers('*', 'team-*')).toBe(true);
    expect(patternCovers('team-*', 'team-a*')).toBe(true);
    expect(patternCovers('team-*', 'team-a')).toBe(true);
    expect(patternCovers('team-a*', 'team-*')).toBe(false);
    expect(patternCovers('user-42', 'user-*')).toBe(false);
    expect(patternCovers('user-42', 'user-42')).toBe(true);
  });

  it('parse a comma-separated list and refuse anything else, naming the field', () => {
    expect(parsePatternList(' user-42, team-* ,*')).toEqual(['user-42', 'team-*', '*']);
    for (const bad of ['', 'a*b', '*team', '..', 'a b', 'x'.repeat(129)]) {
      let error: unknown;
      try {
        parsePatternList(bad, '--memories');
      } catch (caught) {
        error = caught;
      }
      expect(isMemoryError(error, 'VALIDATION_FAILED')).toBe(true);
      expect((error as Error).message).toContain('--memories');
    }
  });
});

describe('rights', () => {
  it('parse a list, all, and refuse unknown or repeated rights', () => {
    expect(parseRightsList('recall,read')).toEqual(['read', 'recall']);
    expect(parseRightsList('all')).toEqual([...RIGHTS]);
    expect(() => parseRightsList('read,fly')).toThrow(/Invalid rights "read,fly"/);
    expect(() => parseRightsList('read,read')).toThrow(/must not repeat/);
    expect(() => parseRightsList('')).toThrow(/at least one right/);
  });
});

describe('authorize', () => {
  it('grants exactly the rights on the memories of a grant', () => {
    expect(authorize(agent, 'user-42', 'read')).toBe(true);
    expect(authorize(agent, 'team-x', 'recall')).toBe(true);
    expect(authorize(agent, 'user-42', 'write')).toBe(false);
    expect(authorize(agent, 'user-43', 'read')).toBe(false);
    expect(authorize(agent, 'scratch', 'delete')).toBe(true);
    expect(authorize(agent, 'scratch', 'read')).toBe(false);
    expect(rightsOn(agent, 'team-x')).toEqual(['read', 'recall']);
    expect(rightsOn(agent, 'elsewhere')).toEqual([]);
  });

  it('gives the token and an unauthenticated server every right, and names the token', () => {
    for (const right of RIGHTS) {
      expect(authorize(TOKEN_PRINCIPAL, 'any', right)).toBe(true);
      expect(authorize(UNAUTHENTICATED, 'any', right)).toBe(true);
    }
    expect(TOKEN_PRINCIPAL.recordedBy).toEqual({ principal: 'token', via: 'token' });
    expect(UNAUTHENTICATED.recordedBy).toBeNull();
  });

  it('refuses with FORBIDDEN naming the right and the memory, the same for any memory', () => {
    const existing = forbidden(agent, 'user-1', 'read');
    const missing = forbidden(agent, 'user-2', 'read');
    expect(existing.code).toBe('FORBIDDEN');
    expect(existing.message).toBe('Principal agent-7 lacks the right "read" on memory user-1.');
    expect(missing.message.replace('user-2', 'user-1')).toBe(existing.message);
  });

  it('lets an admin hand out only what lies within its own admin grant', () => {
    const admin: Principal = {
      recordedBy: { principal: 'ops', via: 'key:ops' },
      grants: [{ memories: ['team-*'], rights: ['admin', 'read', 'write'] }],
    };
    expect(mayGrant(admin, { memories: ['team-a', 'team-b*'], rights: ['read'] })).toBe(true);
    expect(mayGrant(admin, { memories: ['team-a'], rights: ['read', 'erase'] })).toBe(false);
    expect(mayGrant(admin, { memories: ['team-a', 'user-1'], rights: ['read'] })).toBe(false);
    expect(mayGrant(admin, { memories: ['*'], rights: ['read'] })).toBe(false);
    expect(mayGrant(agent, { memories: ['user-42'], rights: ['read'] })).toBe(false);
    expect(mayGrant(TOKEN_PRINCIPAL, { memories: ['*'], rights: [...RIGHTS] })).toBe(true);
  });

  it('makes a key principal record key:<id> and carry the key id', () => {
    const principal = keyPrincipal({
      id: 'k1',
      principal: 'agent-7',
      memories: ['user-42'],
      rights: ['read'],
      createdAt: '2026-01-01T00:00:00Z',
      createdBy: null,
      revokedAt: null,
      revokedBy: null,
    });
    expect(principal.recordedBy).toEqual({ principal: 'agent-7', via: 'key:k1' });
    expect(principal.keyId).toBe('k1');
  });
});

describe('key secrets', () => {
  it('are mlk_ and 256 random bits, never twice the same', () => {
    const a = newKeySecret();
    const b = newKeySecret();
    expect(a).toMatch(/^mlk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(looksLikeKeySecret(a)).toBe(true);
    expect(looksLikeKeySecret(`${a}x`)).toBe(false);
    expect(looksLikeKeySecret('mlk_short')).toBe(false);
    expect(newKeyId()).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('have ids that never begin with a dash, which a command line would read as an option', () => {
    const ids = Array.from({ length: 2000 }, () => newKeyId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{16}$/.test(id))).toBe(true);
  });

  it('are stored as SHA-256 digests compared in constant time', () => {
    const secret = newKeySecret();
    expect(secretDigest(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsMatch(secretDigest(secret), secretDigest(secret))).toBe(true);
    expect(digestsMatch(secretDigest(secret), secretDigest(newKeySecret()))).toBe(false);
    expect(digestsMatch('', '')).toBe(false);
    expect(tokensMatch('a-token', 'a-token')).toBe(true);
    expect(tokensMatch('a-token', 'a-token-longer')).toBe(false);
  });
});

describe('isLoopback', () => {
  it('knows the addresses only this machine reaches', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      expect([host, isLoopback(host)]).toEqual([host, true]);
    }
    for (const host of ['0.0.0.0', '::', '', '10.0.0.1', '192.168.1.2', 'example.com']) {
      expect([host, isLoopback(host)]).toEqual([host, false]);
    }
  });
});
