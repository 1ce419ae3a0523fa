/* global document */
// Erasure on the page: an erased item is shown as an act — who asked, why, when — and never its
// words. When an Erasure arrives on the stream, every copy of its targets the page holds (the
// timeline, the events it looked up, recall and search results) is replaced by the marker.
import { session } from './memory-session.js';
import { h, requesterOf, timeOf } from './view.js';

/** True for content whose words an Erasure destroyed (the server's marker: `erased: true`). */
export function isErased(event) {
  return event?.erased === true;
}

/** The erasure marker of a content event the page holds: the words gone, everything else kept. */
export function erasedForm(event) {
  const { content: _content, name: _name, text: _text, sha256: _sha256, ...kept } = event;
  return event.kind === 'document'
    ? { ...kept, name: null, text: null, erased: true }
    : { ...kept, content: null, erased: true };
}

/** "Erased at #7 (time) by dpo: “reason”." — the act, for the item panel and the state rows. */
export function erasedNote(erasure, tag = 'p', link = (_id, label) => label) {
  return h(
    tag,
    { class: 'erased-note' },
    'Erased at ',
    link(erasure.id, `#${erasure.seq}`),
    ' (',
    timeOf(erasure.timestamp),
    ')',
    `, requested by ${requesterOf(erasure)}: `,
    h('q', {}, erasure.reason),
    tag === 'p' ? '. Its words are gone for good; the act stays on record.' : '',
  );
}

/**
 * Replaces every copy of the erasure's targets the page holds with the marker, and drops them
 * from recall and search results (which show words). Returns the targets' marker events.
 */
export function forgetTargets(erasure) {
  const forgotten = [];
  for (const id of erasure.targets) {
    for (const map of [session.streamed, session.fetched]) {
      const held = map.get(id);
      if (held && !isErased(held)) map.set(id, erasedForm(held));
    }
    const marker = session.streamed.get(id) ?? session.fetched.get(id);
    if (marker) forgotten.push(marker);
    for (const row of document.querySelectorAll(
      `#recall-results li[data-id="${id}"], #search-results li[data-id="${id}"]`,
    ))
      row.remove();
  }
  return forgotten;
}
