/**
 * `memledger access create | list | revoke`: access keys, on the store's own grant store (its
 * SQLite file, created when missing, so keys can exist before the server first starts; or its
 * EventStoreDB node) or, with `--server`, through a running server as a principal with `admin`.
 */
import type { Command } from 'commander';
import type { RecordedBy } from '../../core/index.js';
import { operator } from '../operator.js';
import {
  parsePatternList,
  parseRightsList,
  type AccessKey,
  type GrantStore,
  type NewKey,
} from '../../access/index.js';
import { openGrantsOf } from '../open.js';
import { printLines } from '../output.js';
import { remoteOf, type Remote } from '../remote.js';

interface CreateOptions {
  readonly principal: string;
  readonly memories: string;
  readonly rights: string;
  readonly json?: boolean;
}

/** Registers `access` and its subcommands on the program. */
export function registerAccessCommand(program: Command): void {
  const access = program
    .command('access')
    .description('create, list and revoke access keys (per memory pattern and right)');
  access
    .command('create')
    .description('grant a new access key; its secret is shown once and stored only as a digest')
    .requiredOption('--principal <name>', 'who the key is for (recorded as recordedBy.principal)')
    .requiredOption('--memories <patterns>', 'memory ids and prefix wildcards: user-42,team-*,*')
    .requiredOption(
      '--rights <list>',
      'read, recall, write, delete, erase, admin (comma-separated), or all',
    )
    .option('--json', 'print one JSON object: { id, principal, memories, rights, secret }')
    .action(async (options: CreateOptions, command: Command) => {
      const input: NewKey = {
        principal: options.principal,
        memories: parsePatternList(options.memories, '--memories'),
        rights: parseRightsList(options.rights, '--rights'),
      };
      const { key, secret } = await withGrants(command, {
        local: async (grants) => grants.create(input, operator()),
        remote: async (remote) => {
          const created = await remote.post<AccessKey & { secret: string }>(
            '/api/access/keys',
            input,
          );
          return { key: created, secret: created.secret };
        },
      });
      const { id, principal, memories, rights } = key;
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ id, principal, memories, rights, secret })}\n`);
        return;
      }
      await printLines([
        `created access key ${id} for principal ${principal}`,
        `  memories: ${memories.join(', ')}`,
        `  rights: ${rights.join(', ')}`,
        `  secret (shown this once, stored only as a digest): ${secret}`,
      ]);
    });
  access
    .command('list')
    .description('list the access keys (never their secrets), revoked ones included')
    .option('--json', 'print the keys as a JSON array')
    .action(async (options: { readonly json?: boolean }, command: Command) => {
      const keys = await withGrants(command, {
        local: async (grants) => [...grants.keys()],
        remote: (remote) => remote.get<AccessKey[]>('/api/access/keys'),
      });
      if (options.json) process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      else await printLines(keys.length === 0 ? ['no access keys'] : keys.map(keyLine));
    });
  access
    .command('revoke')
    .description('revoke an access key: every server refuses it within a second')
    // Ids granted before ids never began with a dash may: `revoke -- -abc…` ends the options.
    .argument(
      '<key-id>',
      'the key id (memledger access list); one that begins with - goes after --',
    )
    .action(async (keyId: string, _options: unknown, command: Command) => {
      const key = await withGrants(command, {
        local: (grants) => grants.revoke(keyId, operator()),
        remote: (remote) =>
          remote.post<AccessKey>(`/api/access/keys/${encodeURIComponent(keyId)}/revoke`, {}),
      });
      process.stdout.write(`revoked access key ${key.id} (principal ${key.principal})\n`);
    });
}

/** Runs the local or the remote variant, as `--server` says; closes what it opened. */
async function withGrants<T>(
  command: Command,
  work: { local(grants: GrantStore): Promise<T>; remote(remote: Remote): Promise<T> },
): Promise<T> {
  const remote = remoteOf(command);
  if (remote) return work.remote(remote);
  const grants = await openGrantsOf(command);
  try {
    return await work.local(grants);
  } finally {
    await grants.close();
  }
}

/** One key on one line. */
function keyLine(key: AccessKey): string {
  const by = (who: RecordedBy) => (who === null ? 'unknown' : who.principal);
  const state =
    key.revokedAt === null ? 'valid' : `revoked ${key.revokedAt} by ${by(key.revokedBy)}`;
  return `${key.id}  ${key.principal}  memories ${key.memories.join(',')}  rights ${key.rights.join(',')}  created ${key.createdAt} by ${by(key.createdBy)}  ${state}`;
}
