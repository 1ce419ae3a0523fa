/* global document */
// DOM building for the page. Text always goes in through textContent, never as HTML.

/** Creates an element: h('li', { class: 'x', dataset: { id } }, child, 'text', ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof globalThis.Node ? child : String(child));
  }
  return el;
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * The one format the page shows times in: local `YYYY-MM-DD HH:MM:SS` (24-hour clock, the
 * browser's time zone). A value that is not a date is shown as it is.
 */
export function formatTime(timestamp) {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return String(timestamp);
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A `<time>` showing `formatTime(timestamp)`, with the stored ISO timestamp as its tooltip. */
export function timeOf(timestamp) {
  return h('time', { datetime: timestamp, title: timestamp }, formatTime(timestamp));
}

export function clip(text, max = 140) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A count with its noun: `plural(1, 'item')` is "1 item", `plural(2, 'match', 'matches')`. */
export function plural(count, word, pluralWord = `${word}s`) {
  return `${count} ${count === 1 ? word : pluralWord}`;
}

/** Who asked for a deletion or an erasure: `not given` when the act names no one. */
export function requesterOf(act) {
  return act.requestedBy ?? 'not given';
}

/**
 * How the page counts: in events (a log up to #n holds n + 1), the `#n` being an event's seq.
 * `shown` is how many of them the timeline holds when it holds fewer than all.
 */
export function eventCountText(shown, lastSeq) {
  const total = lastSeq === null ? 0 : lastSeq + 1;
  return shown < total ? `newest ${shown} of ${plural(total, 'event')}` : plural(total, 'event');
}

/** One line saying what an event is. */
export function describe(event, max = 140) {
  // An erased item has no words to show: only what it was, and that it was erased.
  if (event.erased === true)
    return event.kind === 'message' ? `${event.speaker}: [erased]` : '[erased]';
  switch (event.kind) {
    case 'message':
      return `${event.speaker}: ${clip(event.content, max)}`;
    case 'document':
      return `${event.name} — ${clip(event.text, max)}`;
    case 'recall':
      return `“${clip(event.query, 60)}” → ${plural(event.recalled.length, 'item')}`;
    case 'deletion':
    case 'erasure':
      return `“${clip(event.reason, 80)}”`;
    default:
      return event.kind;
  }
}

export function kindBadge(kind) {
  return h('span', { class: `kind kind-${kind}` }, kind);
}

/** Who the server authenticated for an event: `name (via)`, or null when nobody was. */
export function principalText(recordedBy) {
  return recordedBy ? `${recordedBy.principal} (${recordedBy.via})` : null;
}

/**
 * The who/where line of an event: session, actor (the client's claim), the principal the server
 * authenticated, source.
 */
export function provenance(event) {
  const parts = [];
  if (event.sessionId)
    parts.push(
      h('span', { class: 'meta-session', title: 'session' }, `session ${event.sessionId}`),
    );
  if (event.actor)
    parts.push(
      h('span', { class: 'meta-actor', title: 'actor (claimed)' }, `actor ${event.actor}`),
    );
  if (event.recordedBy)
    parts.push(
      h(
        'span',
        { class: 'meta-principal', title: 'recorded by (authenticated)' },
        `by ${event.recordedBy.principal}`,
      ),
    );
  if (event.source && event.source !== 'unknown')
    parts.push(h('span', { title: 'source' }, `via ${event.source}`));
  return parts;
}

export function clear(el, ...children) {
  el.replaceChildren(...children.flat().filter(Boolean));
  return el;
}

/** A list of `path: message` lines for a failed request. */
export function errorText(error) {
  const issues = (error.issues ?? []).map((i) => `${i.path}: ${i.message}`);
  return [`${error.code ?? 'ERROR'}: ${error.message}`, ...issues].join('\n');
}

/** Writes a form's status line; `error` styles it as a failure. */
export function status(el, text, error = false) {
  el.textContent = text;
  el.classList.toggle('error', error);
}

/**
 * Whether the vectors' ranking was exact, and if not what made it approximate (the same words
 * as the CLI's, src/core/retrieval-text.ts).
 */
export function vectorSearchText({ quantization, oversample, cells, probes }) {
  if (quantization === 'none' && cells === 0) return 'exact vectors';
  const parts = [quantization === 'none' ? 'float vectors' : `${quantization} vectors`];
  if (oversample !== null) parts.push(`${oversample}x candidates re-scored`);
  if (cells > 0) parts.push(`${probes} of ${cells} cells read`);
  return parts.join(', ');
}
