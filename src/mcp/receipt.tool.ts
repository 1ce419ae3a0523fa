/**
 * `receipt`: the evidence an agent keeps of what it was given. For the event at a seq (the
 * Recall a `recall` wrote, an item it returned), the memory's checkpoint now, signed by the log's
 * key when the server has one, and the inclusion proof of that event in it. Anyone holding the
 * receipt and the log's verifier key can later check, with memledger/verify, that the event is in
 * the log at that position; a later checkpoint plus a consistency proof shows it was never
 * rewritten. Writes nothing to the log.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isContent } from '../core/index.js';
import type { MemoryOf } from './memory-write.tools.js';
import { quoted } from './quoted-content.render.js';
import { ReceiptInput } from './tool-inputs.schemas.js';
import { ReceiptOutput } from './tool-outputs.schemas.js';
import { runTool, toolResult } from './tool-result.js';

/** Registers `receipt` on `server`. */
export function registerReceiptTool(server: McpServer, memoryOf: MemoryOf): void {
  server.registerTool(
    'receipt',
    {
      title: 'Receipt: prove an event is in the log (writes nothing)',
      description:
        "Proof that the event at a seq is in the memory's tamper-evident log: the memory's checkpoint now " +
        "(signed by the server's log key when it has one) and the event's inclusion proof. Keep it to show " +
        'later what you were given (e.g. the Recall a `recall` wrote): it verifies with memledger/verify ' +
        "against the log's verifier key. Writes nothing.",
      inputSchema: ReceiptInput,
      outputSchema: ReceiptOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
    },
    (args) =>
      runTool(async () => {
        const memory = await memoryOf(args.memoryId, ['read']);
        const checkpoint = await memory.checkpoint();
        const proof = await memory.proveInclusion(args.seq, checkpoint.size);
        const withheld = await withheldReason(memory, args.seq);
        const { leaf: _leaf, ...shown } = proof;
        const logKey = memory.logKey ?? null;
        const structured = {
          memoryId: memory.memoryId,
          checkpoint: checkpoint.note,
          signed: checkpoint.signed,
          origin: checkpoint.origin,
          logKey,
          proof: withheld === undefined ? proof : shown,
          ...(withheld === undefined ? {} : { withheld }),
        };
        const text = [
          `Receipt for the event at seq ${args.seq} of memory ${quoted(memory.memoryId)}: it is leaf ${args.seq} of the tree of ${checkpoint.size} leaves with root ${checkpoint.root} (origin ${checkpoint.origin}).`,
          checkpoint.signed
            ? `The checkpoint is signed by ${logKey ?? 'the log key'}. Keep the checkpoint note and the proof; verify them with memledger/verify.`
            : 'The server has no log key: this checkpoint is UNSIGNED and proves nothing to a third party.',
          ...(withheld === undefined ? [] : [withheld]),
          `Checkpoint:\n${checkpoint.note}`,
          `Proof: ${JSON.stringify(structured.proof)}`,
        ];
        return toolResult(structured, text.join('\n\n'));
      }),
  );
}

/**
 * Why the leaf bytes are left out, when the event is content deleted since: its leaf holds its
 * words on a store that does not seal them, and deleted content never goes back to an agent.
 */
async function withheldReason(
  memory: Awaited<ReturnType<MemoryOf>>,
  seq: number,
): Promise<string | undefined> {
  const [event] = await memory.readEvents({ fromSeq: seq, toSeq: seq });
  if (event === undefined || !isContent(event)) return undefined;
  const { deletedBy } = await memory.getEvent(event.id);
  return deletedBy === null
    ? undefined
    : `The leaf bytes are withheld: the event is content deleted by ${deletedBy.id}, and deleted content never returns to an agent. The leaf hash and path still prove it.`;
}
