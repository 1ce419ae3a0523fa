// The rows of the state panel's lists: a visible item (with its recall count and a checkbox to
// select it for deletion), a deleted item (struck through, linking to its Deletion, and to its
// Erasure when its words are gone), the row of an empty list, and the row saying how much of a
// cut list is shown.
import { erasedNote } from './erasure.js';
import { renderDeleteControls } from './forms.js';
import { itemLink } from './item-panel.js';
import { session } from './memory-session.js';
import { clip, describe, h, provenance, requesterOf, timeOf } from './view.js';

/** Stands in for a deleted item the server could not return, so its row still shows the id. */
export function unknownItem(id) {
  return { id, kind: 'message', speaker: '?', content: id, seq: '?' };
}

export function emptyRow(list, text) {
  return list.length === 0 ? h('li', { class: 'empty' }, text) : null;
}

/**
 * The last row of a list the server cut (`page.next` names where it continues): how many of
 * the total are shown, and a button that loads the next page of it.
 */
export function moreRow(shown, total, noun, loadMore) {
  const row = h(
    'li',
    { class: 'more' },
    `Showing ${shown} of ${total} ${noun}. `,
    h('button', { type: 'button', class: 'link', onclick: () => loadMore(row) }, 'Show more'),
  );
  return row;
}

export function itemRow(item, recallStats) {
  const stat = recallStats[item.id];
  const checkbox = h('input', {
    type: 'checkbox',
    'aria-label': `Select ${describe(item, 40)} for deletion`,
    checked: session.selected.has(item.id),
    // Only "now" can be deleted from: see renderDeleteControls.
    disabled: !session.following,
    onchange: (e) => {
      if (e.target.checked) session.selected.add(item.id);
      else session.selected.delete(item.id);
      renderDeleteControls();
    },
  });
  return h(
    'li',
    { class: `item item-${item.kind}`, dataset: { id: item.id, seq: item.seq } },
    checkbox,
    h(
      'div',
      { class: 'item-main' },
      itemLink(item.id, describe(item, 220), 'item-text'),
      h(
        'div',
        { class: 'item-meta' },
        h('span', { class: 'seq' }, `#${item.seq}`),
        timeOf(item.timestamp),
        provenance(item),
        recalledBadge(stat),
      ),
    ),
  );
}

function deletionSummary(deletion) {
  return `deleted at #${deletion.seq}, requested by ${requesterOf(deletion)}: ${clip(deletion.reason, 60)}`;
}

/** "recalled 3×": how often the item entered a context by then (deleted items too). */
function recalledBadge(stat) {
  return stat
    ? h(
        'span',
        { class: 'recalled', title: `last recalled at #${stat.lastRecalledSeq}` },
        `recalled ${stat.count}×`,
      )
    : null;
}

export function deletedRow(item, deletion, erasure, recallStats = {}) {
  return h(
    'li',
    {
      class: erasure ? 'item item-deleted item-erased' : 'item item-deleted',
      dataset: { id: item.id, seq: item.seq },
    },
    h(
      'div',
      { class: 'item-main' },
      itemLink(item.id, h('s', {}, describe(item, 160)), 'item-text struck'),
      h(
        'div',
        { class: 'item-meta' },
        h('span', { class: 'seq' }, `#${item.seq}`),
        itemLink(deletion.id, deletionSummary(deletion), 'deletion-link'),
        erasure ? erasedNote(erasure, 'span', (id, label) => itemLink(id, label)) : null,
        recalledBadge(recallStats[item.id]),
      ),
    ),
  );
}
