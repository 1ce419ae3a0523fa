/* global document, setTimeout, clearTimeout */
// The state panel: the memory as it stood after the replay point — visible messages and
// documents (with their recall counts and a checkbox to select them for deletion), the items
// deleted by then, and the totals.
import { renderDeleteControls } from './forms.js';
import { itemLink } from './item-panel.js';
import { lookupEvent, session } from './memory-session.js';
import { clear, clip, describe, errorText, h, plural, provenance, timeOf } from './view.js';

/** At most this many visible items per list; the totals still count them all. */
const STATE_PAGE = 200;

const statePanel = document.getElementById('state-panel');
const stateAt = document.getElementById('state-at');
const totals = document.getElementById('totals');
const messages = document.getElementById('messages');
const documents = document.getElementById('documents');
const deleted = document.getElementById('deleted');

/** Reads one page of `memory`'s state after `upToSeq` (undefined: now). */
export function readState(memory, upToSeq) {
  return memory.api.state({ upToSeq, limit: STATE_PAGE });
}

/**
 * Reloads the state at the replay point after `delay` ms. A newer call cancels an older one,
 * so dragging the slider or a burst of events costs one request, not one per step.
 */
export function scheduleState(delay) {
  clearTimeout(session.stateTimer);
  statePanel.setAttribute('aria-busy', 'true');
  session.stateTimer = setTimeout(() => void loadState(), delay);
}

async function loadState() {
  const ticket = ++session.stateTicket;
  const current = session;
  const isLatest = () => current === session && ticket === session.stateTicket;
  try {
    const page = await readState(current, current.viewSeq ?? undefined);
    if (!isLatest()) return; // a newer request (or another memory) won
    await renderState(page);
  } catch (error) {
    if (isLatest()) renderStateError(error);
  } finally {
    if (isLatest()) statePanel.removeAttribute('aria-busy');
  }
}

export function renderStateError(error) {
  totals.textContent = errorText(error);
  totals.classList.add('error');
}

/** Draws a state page; deleted items outside the timeline are fetched to show what they were. */
export async function renderState(page) {
  totals.classList.remove('error');
  stateAt.textContent =
    page.lastSeq === null
      ? '(empty)'
      : session.following
        ? `now (after #${page.lastSeq})`
        : `as it stood after #${page.lastSeq}`;
  totals.textContent = totalsText(page);
  // A selected item that is no longer visible (deleted meanwhile) cannot be deleted again.
  const visible = page.visibleMessages.concat(page.visibleDocuments);
  for (const id of [...session.selected])
    if (!visible.some((i) => i.id === id)) session.selected.delete(id);
  clear(
    messages,
    page.visibleMessages.map((m) => itemRow(m, page)),
    emptyRow(page.visibleMessages, 'No visible messages.'),
  );
  clear(
    documents,
    page.visibleDocuments.map((d) => itemRow(d, page)),
    emptyRow(page.visibleDocuments, 'No visible documents.'),
  );
  const deletions = Object.entries(page.deleted).sort(([, a], [, b]) => a.seq - b.seq);
  const rows = await Promise.all(
    deletions.map(async ([id, deletion]) =>
      deletedRow(await lookupEvent(id).catch(() => unknownItem(id)), deletion),
    ),
  );
  clear(deleted, rows, emptyRow(rows, 'Nothing deleted by then.'));
  renderDeleteControls();
}

function totalsText(page) {
  const t = page.totals;
  const recalled = Object.values(page.recallStats);
  const recalls = recalled.reduce((sum, s) => sum + s.count, 0);
  const messageCount = plural(t.visibleMessages, 'message');
  const documentCount = plural(t.visibleDocuments, 'document');
  const recalledItems = plural(recalled.length, 'item');
  return `${messageCount} and ${documentCount} visible · ${t.deleted} deleted · ${recalledItems} recalled ${plural(recalls, 'time')}`;
}

/** Stands in for a deleted item the server could not return, so its row still shows the id. */
function unknownItem(id) {
  return { id, kind: 'message', speaker: '?', content: id, seq: '?' };
}

function emptyRow(list, text) {
  return list.length === 0 ? h('li', { class: 'empty' }, text) : null;
}

function itemRow(item, page) {
  const stat = page.recallStats[item.id];
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
        stat
          ? h(
              'span',
              { class: 'recalled', title: `last recalled at #${stat.lastRecalledSeq}` },
              `recalled ${stat.count}×`,
            )
          : null,
      ),
    ),
  );
}

function deletionSummary(deletion) {
  const by = deletion.requestedBy ?? 'unknown';
  return `deleted at #${deletion.seq} by ${by}: ${clip(deletion.reason, 60)}`;
}

function deletedRow(item, deletion) {
  return h(
    'li',
    { class: 'item item-deleted', dataset: { id: item.id, seq: item.seq } },
    h(
      'div',
      { class: 'item-main' },
      itemLink(item.id, h('s', {}, describe(item, 160)), 'item-text struck'),
      h(
        'div',
        { class: 'item-meta' },
        h('span', { class: 'seq' }, `#${item.seq}`),
        itemLink(deletion.id, deletionSummary(deletion), 'deletion-link'),
      ),
    ),
  );
}
