/* global document, window */
// The item panel: one event in full (fields, content, who deleted and erased it) and, for a
// message or document, every recall that put it into a context. Every id on the page links here.
// An erased item shows the act (who, why, when), never its words.
import { erasedNote, isErased } from './erasure.js';
import { knownEvent, session } from './memory-session.js';
import { verificationBlock } from './verify-item.js';
import {
  clear,
  clip,
  describe,
  errorText,
  h,
  kindBadge,
  plural,
  requesterOf,
  principalText,
  timeOf,
  vectorSearchText,
} from './view.js';

const panel = document.getElementById('item-panel');
const body = document.getElementById('item-body');
const timeline = document.getElementById('timeline');

/** Counts `showItem` calls, so a slow answer for an item the user has moved on from is dropped. */
let ticket = 0;
/** The id the panel shows (or is loading), if any. */
let shownId = null;

/** Loads the panel again when it shows one of `ids` (an erasure just destroyed its words). */
export function refreshItem(ids) {
  if (shownId !== null && ids.includes(shownId)) void showItem(shownId);
}

/** Empties the panel back to its hint (as in index.html). */
export function resetItemPanel() {
  ticket++;
  shownId = null;
  clear(body, h('p', { class: 'hint' }, 'Choose an event or an item to see its full history.'));
}

/** A button that opens `id` in the item panel; `extraClass` is added to `link`. */
export function itemLink(id, content, extraClass) {
  return h(
    'button',
    {
      type: 'button',
      class: extraClass ? `link ${extraClass}` : 'link',
      onclick: () => showItem(id),
    },
    content,
  );
}

/**
 * Loads event `id` (and its recall history when it is content) into the panel, then scrolls the
 * panel into view: its top first, so a history longer than the window starts on screen and the
 * rest is a scroll away (the page's on a narrow screen, the tools column's on a wide one).
 */
export async function showItem(id) {
  const mine = ++ticket;
  shownId = id;
  const current = session;
  timeline.querySelectorAll('.selected').forEach((li) => li.classList.remove('selected'));
  timeline.querySelector(`li[data-id="${id}"]`)?.classList.add('selected');
  clear(body, h('p', { class: 'hint' }, 'Loading…'));
  let details;
  try {
    const lookupResult = await session.api.event(id);
    const { event } = lookupResult;
    const history = isContent(event) ? await session.api.history(id) : null;
    details = itemDetails(event, lookupResult, history);
    // Checked in the browser; dropped if the user has moved on by the time it resolves.
    details.push(
      verificationBlock(current.memoryId, event, () => mine === ticket && current === session),
    );
  } catch (error) {
    details = h('p', { class: 'form-status error' }, errorText(error));
  }
  if (mine !== ticket || current !== session) return;
  clear(body, details);
  revealPanel();
}

/** Scrolls the item panel's top into view (at once when the user asked for less motion). */
function revealPanel() {
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  panel.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' });
}

/** Messages and documents are content: they can be recalled and deleted, and have a history. */
function isContent(event) {
  return event.kind === 'message' || event.kind === 'document';
}

function field(name, ...value) {
  return [h('dt', {}, name), h('dd', {}, ...value)];
}

/** A link to `id` labelled with what the page knows about it, else the bare id. */
function idLink(id) {
  const known = knownEvent(id);
  return itemLink(id, known ? `#${known.seq} ${describe(known, 50)}` : id);
}

function idList(ids) {
  return h(
    'ul',
    {},
    ids.map((id) => h('li', {}, idLink(id))),
  );
}

function itemDetails(event, { deletedBy, erasedBy }, history) {
  const body = [
    h(
      'h3',
      {},
      kindBadge(event.kind),
      ' ',
      isContent(event) ? describe(event, 50) : `#${event.seq}`,
    ),
    deletedBy ? deletedNote(deletedBy) : null,
    erasedBy ? erasedNote(erasedBy, 'p', itemLink) : null,
    h('dl', { class: 'fields' }, fieldsOf(event).flat()),
  ];
  const content = event.kind === 'message' ? event.content : event.text;
  if (isContent(event) && !isErased(event))
    body.push(h('pre', { class: deletedBy ? 'content struck' : 'content' }, content));
  if (history) body.push(...recallUses(history.recalls));
  return body;
}

/** The `dt`/`dd` pairs shared by every kind, then the kind's own. */
function fieldsOf(event) {
  const list = [
    field('seq', `#${event.seq}`),
    field('time', timeOf(event.timestamp)),
    field('id', h('code', {}, event.id)),
    field('source', event.source),
  ];
  if (event.sessionId) list.push(field('session', event.sessionId));
  if (event.actor) list.push(field('actor (claimed)', event.actor));
  list.push(field('recorded by', principalText(event.recordedBy) ?? 'nobody authenticated'));
  if (event.kind === 'message') list.push(field('speaker', event.speaker));
  if (event.kind === 'document')
    list.push(field('name', event.name ?? '[erased]'), field('media type', event.mediaType));
  if (event.kind === 'recall')
    list.push(
      field('query', event.query),
      field('recalled', event.recalled.length ? idList(event.recalled) : 'nothing'),
      field('retrieval', retrievalDetail(event.retrieval)),
    );
  if (event.kind === 'deletion' || event.kind === 'erasure')
    list.push(
      field('reason', event.reason),
      field('requested by', requesterOf(event)),
      field('targets', idList(event.targets)),
    );
  return list;
}

function deletedNote(deletedBy) {
  return h(
    'p',
    { class: 'deleted-note' },
    'Deleted at ',
    itemLink(deletedBy.id, `#${deletedBy.seq}`),
    ' (',
    timeOf(deletedBy.timestamp),
    ')',
    `, requested by ${requesterOf(deletedBy)}: `,
    h('q', {}, deletedBy.reason),
    '. It stays in the log but is no longer visible, searchable or recallable.',
  );
}

/** The recalls that put this item into a context, each linking to its Recall event. */
function recallUses(recalls) {
  return [
    h('h4', {}, `Recalled ${plural(recalls.length, 'time')}`),
    recalls.length
      ? h(
          'ol',
          { class: 'recall-uses' },
          recalls.map((use) =>
            h(
              'li',
              {},
              itemLink(use.recallId, `#${use.seq}`),
              ' ',
              h('q', {}, clip(use.query, 60)),
              use.actor ? ` by ${use.actor}` : '',
              use.recordedBy ? ` · recorded by ${principalText(use.recordedBy)}` : '',
              ' · ',
              timeOf(use.timestamp),
              use.retrieval ? ` · ${use.retrieval.method}` : '',
            ),
          ),
        )
      : h('p', { class: 'hint' }, 'Never entered a context.'),
  ];
}

/** How a Recall chose its items, as recorded: method, model and dimensions, vector search, fusion. */
function retrievalDetail(retrieval) {
  if (!retrieval) return 'lexical (BM25)';
  const parts = [retrieval.method];
  if (retrieval.model) parts.push(`${retrieval.model}, ${retrieval.dimensions} dimensions`);
  if (retrieval.vectors) parts.push(vectorSearchText(retrieval.vectors));
  if (retrieval.fusion) {
    const { k, weights } = retrieval.fusion;
    parts.push(`RRF k ${k}, weights ${weights.lexical} / ${weights.semantic}`);
  }
  return parts.join(' · ');
}
