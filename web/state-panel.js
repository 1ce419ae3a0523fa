/* global document, setTimeout, clearTimeout */
// The state panel: the memory as it stood after the replay point — visible messages and
// documents (with their recall counts and a checkbox to select them for deletion), the items
// deleted by then, and the totals. The server pages each list (and may cut a page short at its
// byte budget): a cut list ends in a "Showing N of M" row whose button loads the rest of it.
import { renderDeleteControls } from './forms.js';
import { lookupEvent, session } from './memory-session.js';
import { deletedRow, emptyRow, itemRow, moreRow, unknownItem } from './state-rows.js';
import { clear, errorText, plural } from './view.js';

/** At most this many items per list and request; the totals still count them all. */
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

/** Shows why the state could not be read, and nothing of a state read before (another memory's). */
export function renderStateError(error) {
  totals.textContent = errorText(error);
  totals.classList.add('error');
  for (const list of [messages, documents, deleted]) clear(list);
  stateAt.textContent = '';
}

/** The lists of a state page, as `page.next` and `totals` name them, and where each is drawn. */
const LISTS = {
  visibleMessages: { el: messages, noun: 'messages' },
  visibleDocuments: { el: documents, noun: 'documents' },
  deleted: { el: deleted, noun: 'deleted items' },
};

/**
 * What the panel shows: the state page it was drawn from, the recall stats of every item shown
 * (later pages add theirs) and the lists that have more. Replaced by each `renderState`, which
 * is how a "Show more" answer for a state no longer shown is recognised and dropped.
 */
let shown = null;

/** Draws a state page; deleted items outside the timeline are fetched to show what they were. */
export async function renderState(page) {
  const view = {
    session,
    page,
    stats: { ...page.recallStats },
    cut: new Set(Object.keys(LISTS).filter((key) => page.page.next[key] !== null)),
  };
  shown = view;
  totals.classList.remove('error');
  stateAt.textContent =
    page.lastSeq === null
      ? '(empty)'
      : session.following
        ? `now (after #${page.lastSeq})`
        : `as it stood after #${page.lastSeq}`;
  totals.textContent = totalsText(view);
  // A selected item that is no longer visible (deleted meanwhile) cannot be deleted again.
  const visible = page.visibleMessages.concat(page.visibleDocuments);
  for (const id of [...session.selected])
    if (!visible.some((i) => i.id === id)) session.selected.delete(id);
  clear(
    messages,
    page.visibleMessages.map((m) => itemRow(m, view.stats)),
    emptyRow(page.visibleMessages, 'No visible messages.'),
    more(view, 'visibleMessages', page, page.visibleMessages.length),
  );
  clear(
    documents,
    page.visibleDocuments.map((d) => itemRow(d, view.stats)),
    emptyRow(page.visibleDocuments, 'No visible documents.'),
    more(view, 'visibleDocuments', page, page.visibleDocuments.length),
  );
  const rows = await deletedRows(page);
  if (shown !== view) return; // a newer state was drawn while the deleted items were looked up
  clear(
    deleted,
    rows,
    emptyRow(rows, 'Nothing deleted by then.'),
    more(view, 'deleted', page, rows.length),
  );
  renderDeleteControls();
}

/** The rows of a page's deleted items, in the order of their deletions. */
async function deletedRows(page) {
  const deletions = Object.entries(page.deleted).sort(([, a], [, b]) => a.seq - b.seq);
  return Promise.all(
    deletions.map(async ([id, deletion]) =>
      deletedRow(
        await lookupEvent(id).catch(() => unknownItem(id)),
        deletion,
        page.erased?.[id],
        page.recallStats,
      ),
    ),
  );
}

/** The "Showing N of M" row of list `key` when `page` says it continues, else null. */
function more(view, key, page, count) {
  const next = page.page.next[key];
  if (next === null) return null;
  const total = view.page.totals[key];
  return moreRow(count, total, LISTS[key].noun, (row) => void loadMore(view, key, next, row));
}

/**
 * Loads the page of list `key` that starts at `offset`, as of the seq the panel shows (not the
 * latest: the rows must continue the same state), and puts its rows in place of `row`.
 */
async function loadMore(view, key, offset, row) {
  const button = row.querySelector('button');
  button.disabled = true;
  try {
    const upToSeq = view.page.lastSeq;
    const page = await view.session.api.state({ upToSeq, offset, limit: STATE_PAGE });
    if (shown !== view) return;
    Object.assign(view.stats, page.recallStats);
    const rows =
      key === 'deleted'
        ? await deletedRows(page)
        : page[key].map((item) => itemRow(item, view.stats));
    if (shown !== view || !row.isConnected) return;
    const next = more(view, key, page, offset + rows.length);
    if (!next) view.cut.delete(key);
    row.replaceWith(...rows, ...(next ? [next] : []));
    totals.textContent = totalsText(view);
  } catch (error) {
    button.disabled = false;
    row.append(` ${errorText(error)}`);
  }
}

function totalsText(view) {
  const t = view.page.totals;
  const recalled = Object.values(view.stats);
  const recalls = recalled.reduce((sum, s) => sum + s.count, 0);
  const messageCount = plural(t.visibleMessages, 'message');
  const documentCount = plural(t.visibleDocuments, 'document');
  const recalledItems = plural(recalled.length, 'item');
  // Recall counts come with the items: while a visible list is cut, they cover the shown ones.
  const partial = view.cut.size > 0;
  const scope = partial ? ' (of the items shown)' : '';
  return `${messageCount} and ${documentCount} visible · ${t.deleted} deleted · ${recalledItems}${scope} recalled ${plural(recalls, 'time')}`;
}
