/**
 * Keys and rights for the fuzz: random grants (principals, memory patterns, rights), one key
 * revoked, one secret never granted and the shared token, picked at random for each request; and
 * the check that no answer reaches past its credential's grant: a 2xx for a route the key has
 * no right to, a list naming a memory it may not read, or a refusal that quotes stored content
 * is a leak.
 */
import {
  authorize,
  keyPrincipal,
  newKeySecret,
  openGrantStore,
  RIGHTS,
  TOKEN_PRINCIPAL,
  type Principal,
  type Right,
} from '../src/access/index.js';
import type { StoreConfig } from '../src/store/open-store.js';
import { grantStoreConfigOf } from '../src/http/http-access.js';

/** A credential a fuzzed request may carry, and whom it authenticates (none: must get 401). */
export interface FuzzCredential {
  readonly label: string;
  readonly secret: string;
  readonly principal: Principal | undefined;
}

/** The shared token the fuzz server is started with. */
export const FUZZ_TOKEN = 'fuzz-shared-token';

const PATTERNS = ['fuzz', 'fu*', 'f*', '*', 'A-b_c.9', 'other', 'A*'];

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)]!;

/** `count` random grants in the store's grant store (one revoked), and the other credentials. */
export async function grantFuzzKeys(
  store: StoreConfig,
  random: () => number,
  count = 8,
): Promise<FuzzCredential[]> {
  const grants = await openGrantStore(grantStoreConfigOf(store));
  const by = { principal: 'fuzz', via: 'local' } as const;
  const out: FuzzCredential[] = [];
  try {
    // One key that may do everything on the fuzz memory, so most writes still get through.
    const all = await grants.create(
      { principal: 'fuzz-all', memories: ['fuzz'], rights: [...RIGHTS] },
      by,
    );
    out.push({ label: 'fuzz-all', secret: all.secret, principal: keyPrincipal(all.key) });
    for (let i = 0; i < count; i++) {
      const memories = [...new Set([pick(random, PATTERNS), pick(random, PATTERNS)])];
      const rights = RIGHTS.filter(() => random() < 0.45);
      const { key, secret } = await grants.create(
        { principal: `fuzz-key-${i}`, memories, rights: rights.length ? rights : ['read'] },
        by,
      );
      out.push({ label: key.principal, secret, principal: keyPrincipal(key) });
    }
    const revoked = await grants.create(
      { principal: 'fuzz-revoked', memories: ['*'], rights: [...RIGHTS] },
      by,
    );
    await grants.revoke(revoked.key.id, by);
    out.push({ label: 'revoked', secret: revoked.secret, principal: undefined });
  } finally {
    await grants.close();
  }
  out.push({ label: 'never granted', secret: newKeySecret(), principal: undefined });
  out.push({ label: 'token', secret: FUZZ_TOKEN, principal: TOKEN_PRINCIPAL });
  return out;
}

/** What a path asks of its credential: a memory's right(s), the list, or nothing to check. */
type Need =
  | { readonly kind: 'memory'; readonly memoryId: string; readonly rights: readonly Right[] }
  | { readonly kind: 'list' }
  | { readonly kind: 'authenticated' }
  | { readonly kind: 'public' };

const WRITE_RIGHTS: Record<string, Right> = {
  messages: 'write',
  documents: 'write',
  recalls: 'write',
  recall: 'recall',
  deletions: 'delete',
  erasures: 'erase',
};

function needOf(method: string, rawPath: string): Need {
  const path = rawPath.split('?')[0]!;
  if (!path.startsWith('/api/') && path !== '/api' && !path.startsWith('/mcp'))
    return { kind: 'public' };
  if (path.startsWith('/api/docs')) return { kind: 'public' };
  if (/^\/api\/memories\/?$/.test(path) && method === 'GET') return { kind: 'list' };
  const match = /^\/api\/memories\/([^/]+)\/(.+)$/.exec(path);
  if (!match) return { kind: 'authenticated' };
  let memoryId: string;
  try {
    memoryId = decodeURIComponent(match[1]!);
  } catch {
    return { kind: 'authenticated' };
  }
  const route = match[2]!.replace(/\/$/, '');
  const right = method === 'POST' ? WRITE_RIGHTS[route] : 'read';
  return right === undefined
    ? { kind: 'authenticated' }
    : { kind: 'memory', memoryId, rights: [right] };
}

/**
 * Why this answer leaks, or undefined: a 2xx past the credential's grant (or for no valid
 * credential at all), a list naming a memory the key may not read, or a refusal quoting content.
 */
export function accessLeak(
  method: string,
  path: string,
  credential: FuzzCredential | undefined,
  answer: { readonly status: number; readonly body: string },
): string | undefined {
  const need = needOf(method, path);
  if (need.kind === 'public') return undefined;
  const ok = answer.status >= 200 && answer.status < 300;
  if (answer.status === 403 && /fz\d+x/.test(answer.body)) return 'a refusal quotes stored content';
  if (!ok) return undefined;
  const principal = credential?.principal;
  if (principal === undefined) return `${answer.status} without a valid credential`;
  if (need.kind === 'memory' && !need.rights.every((r) => authorize(principal, need.memoryId, r))) {
    return `${answer.status} for ${credential!.label} without ${need.rights.join('+')} on ${need.memoryId}`;
  }
  if (need.kind === 'list') {
    const listed = JSON.parse(answer.body) as string[];
    const unreadable = listed.filter((id) => !authorize(principal, id, 'read'));
    if (unreadable.length) return `the list shows ${credential!.label} ${unreadable.join(', ')}`;
  }
  return undefined;
}
