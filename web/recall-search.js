/* global document */
// The two ways to read: Recall (the auditable read, which the server records as a Recall event)
// and Inspect (a search of the state at the replay point, which writes nothing).
import { formValues, submitForm } from './form-submit.js';
import { itemLink } from './item-panel.js';
import { session } from './memory-session.js';
import { clear, describe, h, plural, vectorSearchText } from './view.js';

const recallForm = document.getElementById('recall-form');
const recallResults = document.getElementById('recall-results');
const searchForm = document.getElementById('search-form');
const searchResults = document.getElementById('search-results');

export function resetResults() {
  clear(recallResults);
  clear(searchResults);
  searchResults.classList.remove('stale');
}

/**
 * After a new event: inspection hits found at "now" may no longer be true (a deletion may have
 * removed one), so they are dimmed and the status asks for a new search rather than showing
 * stale content as current.
 */
export function markSearchStale() {
  if (searchResults.childElementCount === 0 || searchResults.classList.contains('stale')) return;
  searchResults.classList.add('stale');
  const status = searchForm.parentElement.querySelector('.form-status');
  if (status)
    status.textContent = 'The log has moved since this search: search again for the current state.';
}

/** Wires the recall and inspection forms to the open memory. */
export function wireRecallAndSearch() {
  recallForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const { query, limit, mode } = formValues(recallForm);
    const result = await submitForm(
      recallForm,
      () =>
        session.api.recall({
          query,
          limit: limit ? Number(limit) : undefined,
          mode,
          actor: 'web',
          source: 'web',
        }),
      ({ recall, items, vectors }) =>
        `Recall #${recall.seq} is on record: ${plural(items.length, 'item')} entered the context ` +
        `(${retrievalText(recall.retrieval)}).${vectorsNote(vectors)}`,
    );
    if (result)
      clear(
        recallResults,
        result.items.map((item) => resultRow(item)),
      );
  });

  searchForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const { q, mode } = formValues(searchForm);
    // At "now" the search asks for the live state, not the state after a seq that may be stale.
    const upToSeq = session.following ? undefined : session.viewSeq;
    const when = upToSeq === undefined ? 'now' : `as of #${upToSeq}`;
    const hits = await submitForm(
      searchForm,
      () => session.api.search({ q, upToSeq, mode }),
      (found) => `${plural(found.length, 'match', 'matches')} ${when}. Nothing was written.`,
    );
    searchResults.classList.remove('stale');
    if (hits)
      clear(
        searchResults,
        hits.map((hit) => resultRow(hit.item, hit.score)),
      );
  });
}

/**
 * One found item, linking to the item panel; inspection hits also show their relevance (the
 * server's score, BM25, cosine similarity or fused, relative to the best hit, which is 1).
 */
function resultRow(item, score) {
  return h(
    'li',
    { dataset: { id: item.id } },
    itemLink(item.id, `#${item.seq} ${describe(item, 120)}`),
    score === undefined
      ? null
      : h(
          'span',
          {
            class: 'score',
            title:
              'relevance (BM25, meaning or both, as the mode was) relative to the best match: 1.00 is the best, 0.01 the least',
          },
          score.toFixed(2),
        ),
  );
}

/** How a Recall retrieved, for people: "meaning: all-minilm, 384 dimensions, exact vectors". */
function retrievalText(retrieval) {
  if (!retrieval) return 'lexical';
  const words = { lexical: 'words (BM25)', semantic: 'meaning', hybrid: 'words and meaning' };
  const how = words[retrieval.method] ?? retrieval.method;
  if (!retrieval.model) return how;
  const vectors = retrieval.vectors ? `, ${vectorSearchText(retrieval.vectors)}` : '';
  return `${how}: ${retrieval.model}, ${retrieval.dimensions} dimensions${vectors}`;
}

/** Why a recall ran on words alone, or how far the vectors lag, when either matters. */
function vectorsNote(vectors) {
  if (!vectors || vectors.state === 'current') return '';
  if (vectors.reason) return ` Ran on words alone: ${vectors.reason}.`;
  return ` The newest ${plural(vectors.behind, 'item')} had no vectors yet.`;
}
