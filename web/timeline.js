/* global document, setTimeout */
// The live timeline: every event, newest first, from the server's Server-Sent Events stream,
// and the connection indicator that says whether that stream is up.
import { forgetTargets } from './erasure.js';
import { itemLink, refreshItem, showItem } from './item-panel.js';
import { knownEvent, session } from './memory-session.js';
import {
  clear,
  describe,
  eventCountText,
  h,
  kindBadge,
  plural,
  provenance,
  requesterOf,
  timeOf,
} from './view.js';

/** The timeline keeps this many newest events; older ones drop off the page (not the log). */
const TIMELINE_MAX = 500;
/**
 * Where the page flows as one scrolling column (narrow windows), the timeline shows this many
 * newest events until the user asks for the rest; style.css hides the others (nth-child(n+26)).
 */
const TIMELINE_SHORT = 25;
/** How long to wait before reopening a stream the browser has given up on. */
const RETRY_MS = 3000;

const connection = document.getElementById('connection');
const timeline = document.getElementById('timeline');
const timelineCount = document.getElementById('timeline-count');
const toggle = document.getElementById('timeline-toggle');

toggle.addEventListener('click', () => {
  timeline.classList.toggle('expanded');
  renderToggle();
});

/** Sets the connection indicator: `state` is connecting, live or offline. */
export function setConnection(state, text) {
  connection.dataset.state = state;
  connection.textContent = text;
}

export function resetTimeline() {
  clear(timeline);
  timelineCount.textContent = '';
  timeline.classList.remove('expanded');
  renderToggle();
}

/** Offers the older events when the timeline holds more than the short list shows. */
function renderToggle() {
  const older = timeline.children.length - TIMELINE_SHORT;
  toggle.hidden = older <= 0;
  toggle.textContent = timeline.classList.contains('expanded')
    ? `Show only the newest ${TIMELINE_SHORT}`
    : `Show ${plural(older, 'older event')}`;
  toggle.setAttribute('aria-expanded', String(timeline.classList.contains('expanded')));
}

/** Dims the events after the replay point. */
export function markFuture(viewSeq) {
  for (const li of timeline.children)
    li.classList.toggle('future', Number(li.dataset.seq) > viewSeq);
}

/**
 * Streams the open memory's events into the timeline, starting with the backlog that fits.
 * `onAppended()` runs after each new event is drawn.
 */
export function connectTimeline(lastSeq, onAppended) {
  connect(lastSeq === null ? 0 : Math.max(0, lastSeq - TIMELINE_MAX + 1), onAppended);
}

function connect(fromSeq, onAppended) {
  const current = session;
  const source = current.api.stream(fromSeq);
  current.source = source;
  source.onopen = () => setConnection('live', 'live');
  source.onmessage = (message) => {
    if (current !== session) return;
    if (append(JSON.parse(message.data))) onAppended();
  };
  source.addEventListener('failure', (message) => {
    const body = JSON.parse(message.data);
    setConnection('offline', `stream failed — ${body.message}`);
  });
  source.onerror = () => {
    if (current !== session) return;
    if (source.readyState === 2) {
      // Closed for good (e.g. a 401 or 503 on reconnect): start again after the last event seen.
      setConnection('offline', 'disconnected — retrying…');
      current.retry = setTimeout(() => {
        if (current === session)
          connect(current.lastSeq === null ? 0 : current.lastSeq + 1, onAppended);
      }, RETRY_MS);
    } else {
      // EventSource reconnects by itself after a dropped connection; say so meanwhile.
      setConnection('connecting', 'reconnecting…');
    }
  };
}

/**
 * Draws a new event on top and advances `session.lastSeq`. Returns false for a repeat, which a
 * reconnect can deliver, and draws nothing then.
 */
function append(event) {
  if (session.streamed.has(event.id)) return false;
  session.streamed.set(event.id, event);
  if (event.kind === 'erasure') redrawErased(event);
  timeline.prepend(timelineEntry(event));
  while (timeline.children.length > TIMELINE_MAX) {
    const oldest = timeline.lastElementChild;
    session.streamed.delete(oldest.dataset.id);
    oldest.remove();
  }
  if (session.lastSeq === null || event.seq > session.lastSeq) session.lastSeq = event.seq;
  timelineCount.textContent = `(${eventCountText(timeline.children.length, session.lastSeq)})`;
  renderToggle();
  return true;
}

function timelineEntry(event) {
  return h(
    'li',
    {
      class: `event event-${event.kind}`,
      dataset: { seq: event.seq, id: event.id, kind: event.kind },
    },
    h(
      'button',
      {
        type: 'button',
        class: 'event-head',
        'aria-label': `Event ${event.seq}, ${event.kind}: ${describe(event, 60)}`,
        onclick: () => showItem(event.id),
      },
      h('span', { class: 'seq' }, `#${event.seq}`),
      kindBadge(event.kind),
      timeOf(event.timestamp),
      h('span', { class: 'summary', title: describe(event, 1000) }, describe(event, 400)),
    ),
    h('div', { class: 'event-meta' }, provenance(event)),
    event.kind === 'deletion' ? deletionAct(event) : null,
    event.kind === 'erasure' ? erasureAct(event) : null,
  );
}

/**
 * An Erasure's targets lose their words everywhere on the page: their own timeline entries, and
 * the acts that list them (a Deletion draws its targets' words), then the item panel.
 */
function redrawErased(erasure) {
  const targets = new Set(forgetTargets(erasure).map((marker) => marker.id));
  const related = [...erasure.targets];
  for (const li of [...timeline.children]) {
    const event = session.streamed.get(li.dataset.id);
    if (!event || event.id === erasure.id) continue;
    const lists = event.kind === 'deletion' && event.targets.some((id) => targets.has(id));
    if (targets.has(event.id) || lists) {
      li.replaceWith(timelineEntry(event));
      if (lists) related.push(event.id);
    }
  }
  refreshItem(related);
}

/** An erasure drawn as an act: who, why, and the items whose words it destroyed. */
function erasureAct(event) {
  return h(
    'div',
    { class: 'act' },
    h(
      'p',
      { class: 'act-why' },
      'Requested by ',
      h('strong', {}, requesterOf(event)),
      ` · erased ${plural(event.targets.length, 'item')} for good:`,
    ),
    h(
      'ul',
      { class: 'act-targets' },
      event.targets.map((id) => {
        const target = knownEvent(id);
        return h('li', {}, itemLink(id, target ? describe(target, 60) : id, 'struck'));
      }),
    ),
  );
}

/** A deletion drawn as an act: who, why, and the items it removed (struck through). */
function deletionAct(event) {
  return h(
    'div',
    { class: 'act' },
    h(
      'p',
      { class: 'act-why' },
      'Requested by ',
      h('strong', {}, requesterOf(event)),
      ` · removed ${plural(event.targets.length, 'item')}:`,
    ),
    h(
      'ul',
      { class: 'act-targets' },
      event.targets.map((id) => {
        const target = knownEvent(id);
        return h('li', {}, itemLink(id, target ? describe(target, 60) : id, 'struck'));
      }),
    ),
  );
}
