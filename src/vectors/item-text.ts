import { createHash } from 'node:crypto';
import type { ContentEvent } from '../core/index.js';

/** Characters of an item embedded when the options name no other bound. */
export const DEFAULT_MAX_CHARS = 8000;

/**
 * The text of an item that is embedded: what search indexes (`speaker: content` for a message,
 * `name` and text for a document), cut at `maxChars` — models read a bounded number of tokens,
 * so one vector stands for the beginning of a long document.
 */
export function itemText(item: ContentEvent, maxChars = DEFAULT_MAX_CHARS): string {
  const text =
    item.kind === 'message' ? `${item.speaker}: ${item.content}` : `${item.name}\n${item.text}`;
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}

/** The cache key of a text's vector within one version (the first 128 bits of its SHA-256). */
export function contentDigest(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, 16);
}

/** `vector` scaled to length 1 (a zero vector stays zero): L2 distance then orders like cosine. */
export function unitVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm === 0 || Math.abs(norm - 1) < 1e-7) return vector;
  return vector.map((value) => value / norm);
}

/** The cosine similarity of two unit vectors whose L2 distance is `distance`. */
export function cosineOfDistance(distance: number): number {
  return 1 - (distance * distance) / 2;
}
