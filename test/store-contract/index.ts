/**
 * The one store contract suite (DESIGN.md "Stores"): every adapter runs it with a few lines,
 * and each invariant of DESIGN.md is a named test in its output.
 */
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { describeAppendContract } from './append.contract.js';
import { describeDeletionAndRecallContract } from './deletion-recall.contract.js';
import { describePrincipalsContract } from './principals.contract.js';
import type { StoreHarness } from './harness.js';
import { describeReadContract } from './read.contract.js';
import { describeReplayContract } from './replay.contract.js';
import { describeSubscribeContract } from './subscribe.contract.js';
import { describeVerifiableLogContract } from './verifiable-log.contract.js';

export type { StoreHarness } from './harness.js';

/** What each contract part receives: the harness and the store of the current test. */
export interface ContractContext {
  readonly harness: StoreHarness;
  /** The store opened for the current test. */
  store(): MemoryStore;
  /** Replaces the current store (after a reopen), so cleanup closes the right one. */
  replaceStore(store: MemoryStore): void;
}

/** Runs the whole contract suite against one adapter. */
export function describeEventLogContract(name: string, harness: StoreHarness): void {
  describe(`${name} store contract`, () => {
    let current: MemoryStore | undefined;
    const context: ContractContext = {
      harness,
      store: () => current!,
      replaceStore: (store) => {
        current = store;
      },
    };
    beforeEach(async () => {
      current = await harness.open();
    });
    afterEach(async () => {
      await current?.close();
      await harness.cleanup?.();
    });
    describeAppendContract(context);
    describeDeletionAndRecallContract(context);
    describeReadContract(context);
    describeSubscribeContract(context);
    describeReplayContract(context);
    describeVerifiableLogContract(context);
    describePrincipalsContract(context);
  });
}
