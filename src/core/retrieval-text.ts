/**
 * A Recall's retrieval in words, as the CLI and the MCP tools print it: the method, then the
 * model, how its vectors were searched and the fusion, as far as they were recorded.
 */
import type { Retrieval, VectorSearchRecord } from './events.js';

/** E.g. `hybrid (all-minilm, 384 dimensions, exact vectors, RRF k 60)`, or just `lexical`. */
export function retrievalText(retrieval: Retrieval): string {
  const parts: string[] = [];
  if (retrieval.model !== null)
    parts.push(`${retrieval.model}, ${retrieval.dimensions} dimensions`);
  if (retrieval.vectors !== null) parts.push(vectorSearchText(retrieval.vectors));
  if (retrieval.fusion !== null) parts.push(`RRF k ${retrieval.fusion.k}`);
  return parts.length === 0 ? retrieval.method : `${retrieval.method} (${parts.join(', ')})`;
}

/**
 * `exact vectors`, or e.g. `binary vectors, <oversample>x candidates re-scored, <probes> of <cells>
 * cells read`: whether the ranking is the exact top k of the float vectors, and if not, what made
 * it approximate.
 */
export function vectorSearchText(vectors: VectorSearchRecord): string {
  const { quantization, oversample, cells, probes } = vectors;
  if (quantization === 'none' && cells === 0) return 'exact vectors';
  const parts = [quantization === 'none' ? 'float vectors' : `${quantization} vectors`];
  if (oversample !== null) parts.push(`${oversample}x candidates re-scored`);
  if (cells > 0) parts.push(`${probes} of ${cells} cells read`);
  return parts.join(', ');
}
