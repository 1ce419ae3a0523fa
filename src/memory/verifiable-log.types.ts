/** The verifiable log's answers, as served over HTTP, MCP and Nest (verifiable-log.ts has the how). */

/** A checkpoint as served: the note, and what it says. */
export interface CheckpointNote {
  /** The signed note (C2SP signed-note with tlog-checkpoint text), or the bare text unsigned. */
  readonly note: string;
  /** False when the log has no signing key: `note` is then the checkpoint text alone. */
  readonly signed: boolean;
  /** `<log name>/<memory id>`. */
  readonly origin: string;
  readonly size: number;
  /** The root, base64. */
  readonly root: string;
}

/** `GET proofs/inclusion`: leaf `seq` is in the tree of `treeSize` leaves (base64 fields). */
export interface InclusionProofJson {
  readonly seq: number;
  readonly treeSize: number;
  /** The memledger/leaf/v1 bytes of the event at `seq`. */
  readonly leaf: string;
  readonly leafHash: string;
  readonly path: readonly string[];
}

/** `GET proofs/consistency`: the tree of `from` leaves is a prefix of the tree of `to`. */
export interface ConsistencyProofJson {
  readonly from: number;
  readonly to: number;
  readonly path: readonly string[];
}
