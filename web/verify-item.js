/* global fetch */
// The item panel's proof: the browser checks, with the very memledger/verify files the package
// exports (served at /verify/), that the item is in the memory's tamper-evident log. It fetches
// the current checkpoint and the item's inclusion proof, verifies the log's signature over the
// checkpoint (WebCrypto Ed25519), recomputes the leaf hash from the leaf bytes and the root from
// the path (WebCrypto SHA-256), and checks that the leaf is this event of this memory at its seq.
import {
  SIGNATURE_TYPE,
  parseCheckpoint,
  parseInclusionProof,
  parseVerifierKey,
  toBase64,
  verifyCheckpoint,
  verifyLeafInclusion,
} from '/verify/index.js';
import { token } from './api.js';
import { h } from './view.js';

/** GETs `path` as text with the page's token; throws the server's message on an error. */
async function getText(path) {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const response = await fetch(path, { headers });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {
      // not JSON: the text is the message
    }
    throw new Error(`${path.split('?')[0]} answered ${response.status}: ${message}`);
  }
  return { text, headers: response.headers };
}

/**
 * Verifies that `event` is in the log of `memoryId`: the checkpoint now (its signature under the
 * key the server presents, when it signs) and the event's inclusion proof. Resolves with what was
 * shown; throws saying which check failed.
 */
export async function verifyEvent(memoryId, event) {
  const base = `/api/memories/${encodeURIComponent(memoryId)}`;
  const fetched = await getText(`${base}/checkpoint`);
  const signed = fetched.headers.get('memledger-signed') === 'true';
  let checkpoint;
  let key = null;
  if (signed) {
    key = await parseVerifierKey(
      (await getText('/api/log-key')).text.trim(),
      SIGNATURE_TYPE.ed25519,
    );
    checkpoint = await verifyCheckpoint(fetched.text, {
      log: key,
      origin: `${key.name}/${memoryId}`,
    });
  } else {
    checkpoint = parseCheckpoint(fetched.text);
  }
  const proof = parseInclusionProof(
    JSON.parse(
      (await getText(`${base}/proofs/inclusion?seq=${event.seq}&size=${checkpoint.size}`)).text,
    ),
  );
  const leaf = await verifyLeafInclusion(proof, checkpoint);
  if (leaf.memory !== memoryId || leaf.id !== event.id) {
    throw new Error(`the proven leaf is event ${leaf.id} of memory ${leaf.memory}, not this one`);
  }
  return { checkpoint, key, signed, sealed: typeof leaf.body.sealed === 'string' };
}

/**
 * The panel's verification block, one line: "verifying…", then a verified mark (the details fold
 * out) or "not verified" with what failed.
 */
export function verificationBlock(memoryId, event, isCurrent) {
  const summary = h(
    'summary',
    { class: 'proof-status pending' },
    'Proof: verifying in this browser…',
  );
  const block = h(
    'details',
    { class: 'proof', 'aria-live': 'polite', dataset: { state: 'pending' } },
    summary,
  );
  verifyEvent(memoryId, event).then(
    (result) => {
      if (!isCurrent()) return;
      const { mark, details } = verifiedText(event, result);
      show(
        block,
        'verified',
        [h('strong', { class: 'proof-mark' }, mark), ' in this browser'],
        details,
      );
    },
    (error) => {
      if (!isCurrent()) return;
      const why = error.message ?? String(error);
      show(
        block,
        'failed',
        [h('strong', { class: 'proof-mark' }, '✗ Not verified'), ` — ${why}`],
        [],
      );
      block.open = true;
    },
  );
  return block;
}

function verifiedText(event, { checkpoint, key, signed, sealed }) {
  const where = `Event #${event.seq} is leaf ${event.seq} of the tree of ${checkpoint.size} leaves, root ${toBase64(checkpoint.root)}.`;
  const by = signed
    ? `The checkpoint is signed by ${key.name}+${key.keyId}, the key this server presents: compare it with the one you were given.`
    : 'The server has no log key: the checkpoint is not signed and proves nothing to anyone else.';
  const details = [h('p', {}, where), h('p', {}, by)];
  if (sealed) {
    details.push(
      h(
        'p',
        {},
        'The item is sealed: the proof covers its stored ciphertext, not the words shown.',
      ),
    );
  }
  return { mark: signed ? '✓ Verified' : '✓ In the log (unsigned)', details };
}

function show(block, state, summary, details) {
  block.dataset.state = state;
  block.replaceChildren(h('summary', { class: `proof-status ${state}` }, summary), ...details);
}
