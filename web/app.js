/* global document, window, URL, history, setTimeout, clearTimeout, FormData */
// The memledger page: a live timeline over Server-Sent Events, a replay slider over seq, the
// state at that seq (visible, deleted, recall stats), recall and inspection search, an item
// panel with full history, and forms to add and delete. Plain ES modules, no build step.
import { api, memoryApi } from './api.js';
import {
  clear,
  clip,
  describe,
  errorText,
  h,
  kindBadge,
  provenance,
  status,
  timeOf,
} from './view.js';

const TIMELINE_MAX = 500;
const STATE_PAGE = 200;
const $ = (id) => document.getElementById(id);

const ui = {
  memoryForm: $('memory-form'),
  memoryId: $('memory-id'),
  memoryList: $('memory-list'),
  connection: $('connection'),
  slider: $('replay'),
  sliderLabel: $('replay-label'),
  stepBack: $('step-back'),
  stepForward: $('step-forward'),
  now: $('now'),
  timeline: $('timeline'),
  timelineCount: $('timeline-count'),
  statePanel: $('state-panel'),
  stateAt: $('state-at'),
  totals: $('totals'),
  messages: $('messages'),
  documents: $('documents'),
  deleted: $('deleted'),
  deleteForm: $('delete-form'),
  deleteButton: $('delete-button'),
  deleteHint: $('delete-hint'),
  recallForm: $('recall-form'),
  recallResults: $('recall-results'),
  searchForm: $('search-form'),
  searchResults: $('search-results'),
  messageForm: $('message-form'),
  documentForm: $('document-form'),
  itemPanel: $('item-panel'),
  itemBody: $('item-body'),
};

/** Everything the page knows about the open memory. */
let app;

function freshState(memoryId) {
  return {
    memoryId,
    api: memoryApi(memoryId),
    byId: new Map(), // events seen on the stream (the newest TIMELINE_MAX)
    fetched: new Map(), // events looked up by id (deleted content outside the timeline)
    lastSeq: null,
    viewSeq: null,
    following: true,
    source: null,
    retry: null,
    selected: new Set(),
    stateTicket: 0,
    stateTimer: null,
  };
}

// ---------------------------------------------------------------- opening a memory

async function open(memoryId) {
  if (app) {
    app.source?.close();
    clearTimeout(app.retry);
  }
  app = freshState(memoryId);
  ui.memoryId.value = memoryId;
  const url = new URL(window.location.href);
  url.searchParams.set('memory', memoryId);
  history.replaceState(null, '', url);
  document.title = `memledger — ${memoryId}`;
  clear(ui.timeline);
  clear(ui.recallResults);
  clear(ui.searchResults);
  clear(
    ui.itemBody,
    h('p', { class: 'hint' }, 'Choose an event or an item to see its full history.'),
  );
  setConnection('connecting', 'connecting…');
  try {
    const page = await app.api.state({ limit: STATE_PAGE });
    app.lastSeq = page.lastSeq;
    app.viewSeq = page.lastSeq;
    updateSlider();
    await renderState(page);
    connect(page.lastSeq === null ? 0 : Math.max(0, page.lastSeq - TIMELINE_MAX + 1));
  } catch (error) {
    setConnection('offline', `offline — ${error.message}`);
    renderStateError(error);
  }
  void refreshMemoryList();
}

async function refreshMemoryList() {
  try {
    const ids = await api('/api/memories');
    clear(
      ui.memoryList,
      ids.map((id) => h('option', { value: id })),
    );
  } catch {
    // The list is a convenience: typing a memory id still works.
  }
}

// ---------------------------------------------------------------- live stream

function setConnection(state, text) {
  ui.connection.dataset.state = state;
  ui.connection.textContent = text;
}

function connect(fromSeq) {
  const current = app;
  const source = current.api.stream(fromSeq);
  current.source = source;
  source.onopen = () => setConnection('live', 'live');
  source.onmessage = (message) => {
    if (current !== app) return;
    onEvent(JSON.parse(message.data));
  };
  source.addEventListener('failure', (message) => {
    const body = JSON.parse(message.data);
    setConnection('offline', `stream failed — ${body.message}`);
  });
  source.onerror = () => {
    if (current !== app) return;
    if (source.readyState === 2) {
      // Closed for good (e.g. a 401 or 503 on reconnect): start again after the last event seen.
      setConnection('offline', 'disconnected — retrying…');
      current.retry = setTimeout(() => {
        if (current === app) connect(current.lastSeq === null ? 0 : current.lastSeq + 1);
      }, 3000);
    } else {
      setConnection('connecting', 'reconnecting…');
    }
  };
}

function onEvent(event) {
  if (app.byId.has(event.id)) return;
  app.byId.set(event.id, event);
  ui.timeline.prepend(timelineEntry(event));
  while (ui.timeline.children.length > TIMELINE_MAX) {
    const oldest = ui.timeline.lastElementChild;
    app.byId.delete(oldest.dataset.id);
    oldest.remove();
  }
  ui.timelineCount.textContent = `(${ui.timeline.children.length}${ui.timeline.children.length >= TIMELINE_MAX ? ' newest' : ''})`;
  if (app.lastSeq === null || event.seq > app.lastSeq) app.lastSeq = event.seq;
  if (app.following) {
    app.viewSeq = app.lastSeq;
    scheduleState(60);
  }
  updateSlider();
}

function timelineEntry(event) {
  const act = event.kind === 'deletion' ? deletionAct(event) : null;
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
      h('span', { class: 'summary' }, describe(event, 90)),
    ),
    h('div', { class: 'event-meta' }, provenance(event)),
    act,
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
      h('strong', {}, event.requestedBy ?? 'unknown'),
      ` · removed ${event.targets.length} item${event.targets.length === 1 ? '' : 's'}:`,
    ),
    h(
      'ul',
      { class: 'act-targets' },
      event.targets.map((id) => {
        const target = app.byId.get(id) ?? app.fetched.get(id);
        return h(
          'li',
          {},
          h(
            'button',
            { type: 'button', class: 'link struck', onclick: () => showItem(id) },
            target ? describe(target, 60) : id,
          ),
        );
      }),
    ),
  );
}

// ---------------------------------------------------------------- replay slider

function updateSlider() {
  const empty = app.lastSeq === null;
  ui.slider.disabled = empty;
  ui.slider.max = String(empty ? 0 : app.lastSeq);
  ui.slider.value = String(empty ? 0 : (app.viewSeq ?? app.lastSeq));
  ui.stepBack.disabled = empty || app.viewSeq <= 0;
  ui.stepForward.disabled = empty || app.following;
  ui.now.disabled = empty || app.following;
  ui.slider.setAttribute('aria-valuetext', sliderText());
  ui.sliderLabel.textContent = sliderText();
  ui.sliderLabel.classList.toggle('past', !app.following);
  for (const li of ui.timeline.children)
    li.classList.toggle('future', Number(li.dataset.seq) > app.viewSeq);
  ui.deleteHint.hidden = app.following && app.selected.size > 0;
  ui.deleteButton.disabled = !app.following || app.selected.size === 0;
  ui.deleteButton.textContent = app.selected.size
    ? `Delete ${app.selected.size} selected`
    : 'Delete selected';
}

function sliderText() {
  if (app.lastSeq === null) return 'empty memory';
  const event = [...app.byId.values()].find((e) => e.seq === app.viewSeq);
  const what = event ? ` · ${event.kind} · ${new Date(event.timestamp).toLocaleTimeString()}` : '';
  return app.following
    ? `now · after #${app.viewSeq}${what}`
    : `after #${app.viewSeq} of ${app.lastSeq}${what}`;
}

function moveTo(seq) {
  if (app.lastSeq === null) return;
  app.viewSeq = Math.max(0, Math.min(app.lastSeq, seq));
  app.following = app.viewSeq === app.lastSeq;
  if (!app.following) app.selected.clear();
  updateSlider();
  scheduleState(120);
}

ui.slider.addEventListener('input', () => moveTo(Number(ui.slider.value)));
ui.stepBack.addEventListener('click', () => moveTo(app.viewSeq - 1));
ui.stepForward.addEventListener('click', () => moveTo(app.viewSeq + 1));
ui.now.addEventListener('click', () => moveTo(app.lastSeq));

// ---------------------------------------------------------------- state at the replay point

function scheduleState(delay) {
  clearTimeout(app.stateTimer);
  ui.statePanel.setAttribute('aria-busy', 'true');
  app.stateTimer = setTimeout(() => void loadState(), delay);
}

async function loadState() {
  const ticket = ++app.stateTicket;
  const current = app;
  try {
    const page = await current.api.state({
      upToSeq: current.viewSeq ?? undefined,
      limit: STATE_PAGE,
    });
    if (current !== app || ticket !== app.stateTicket) return; // a newer request won
    await renderState(page);
  } catch (error) {
    if (current === app && ticket === app.stateTicket) renderStateError(error);
  } finally {
    if (current === app && ticket === app.stateTicket) ui.statePanel.removeAttribute('aria-busy');
  }
}

function renderStateError(error) {
  ui.totals.textContent = errorText(error);
  ui.totals.classList.add('error');
}

async function lookup(id) {
  const known = app.byId.get(id) ?? app.fetched.get(id);
  if (known) return known;
  const { event } = await app.api.event(id);
  app.fetched.set(id, event);
  return event;
}

async function renderState(page) {
  ui.totals.classList.remove('error');
  ui.stateAt.textContent =
    page.lastSeq === null
      ? '(empty)'
      : app.following
        ? `now (after #${page.lastSeq})`
        : `as it stood after #${page.lastSeq}`;
  const t = page.totals;
  const recalled = Object.values(page.recallStats);
  const recalls = recalled.reduce((sum, s) => sum + s.count, 0);
  ui.totals.textContent =
    `${t.visibleMessages} message${t.visibleMessages === 1 ? '' : 's'} and ${t.visibleDocuments} document${t.visibleDocuments === 1 ? '' : 's'} visible · ` +
    `${t.deleted} deleted · ${recalled.length} item${recalled.length === 1 ? '' : 's'} recalled ${recalls} time${recalls === 1 ? '' : 's'}`;
  for (const id of [...app.selected])
    if (!page.visibleMessages.concat(page.visibleDocuments).some((i) => i.id === id))
      app.selected.delete(id);
  clear(
    ui.messages,
    page.visibleMessages.map((m) => itemRow(m, page)),
    emptyRow(page.visibleMessages, 'No visible messages.'),
  );
  clear(
    ui.documents,
    page.visibleDocuments.map((d) => itemRow(d, page)),
    emptyRow(page.visibleDocuments, 'No visible documents.'),
  );
  const deletions = Object.entries(page.deleted).sort(([, a], [, b]) => a.seq - b.seq);
  const rows = await Promise.all(
    deletions.map(async ([id, deletion]) =>
      deletedRow(
        await lookup(id).catch(() => ({
          id,
          kind: 'message',
          speaker: '?',
          content: id,
          seq: '?',
        })),
        deletion,
      ),
    ),
  );
  clear(ui.deleted, rows, emptyRow(rows, 'Nothing deleted by then.'));
  updateSlider();
}

function emptyRow(list, text) {
  return list.length === 0 ? h('li', { class: 'empty' }, text) : null;
}

function itemRow(item, page) {
  const stat = page.recallStats[item.id];
  const checkbox = h('input', {
    type: 'checkbox',
    'aria-label': `Select ${describe(item, 40)} for deletion`,
    checked: app.selected.has(item.id),
    disabled: !app.following,
    onchange: (e) => {
      if (e.target.checked) app.selected.add(item.id);
      else app.selected.delete(item.id);
      updateSlider();
    },
  });
  return h(
    'li',
    { class: `item item-${item.kind}`, dataset: { id: item.id, seq: item.seq } },
    checkbox,
    h(
      'div',
      { class: 'item-main' },
      h(
        'button',
        { type: 'button', class: 'link item-text', onclick: () => showItem(item.id) },
        describe(item, 220),
      ),
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

function deletedRow(item, deletion) {
  return h(
    'li',
    { class: 'item item-deleted', dataset: { id: item.id, seq: item.seq } },
    h(
      'div',
      { class: 'item-main' },
      h(
        'button',
        { type: 'button', class: 'link item-text struck', onclick: () => showItem(item.id) },
        h('s', {}, describe(item, 160)),
      ),
      h(
        'div',
        { class: 'item-meta' },
        h('span', { class: 'seq' }, `#${item.seq}`),
        h(
          'button',
          { type: 'button', class: 'link deletion-link', onclick: () => showItem(deletion.id) },
          `deleted at #${deletion.seq} by ${deletion.requestedBy ?? 'unknown'}: ${clip(deletion.reason, 60)}`,
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- item panel

async function showItem(id) {
  ui.timeline.querySelectorAll('.selected').forEach((li) => li.classList.remove('selected'));
  ui.timeline.querySelector(`li[data-id="${id}"]`)?.classList.add('selected');
  clear(ui.itemBody, h('p', { class: 'hint' }, 'Loading…'));
  ui.itemPanel.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  try {
    const lookupResult = await app.api.event(id);
    const { event } = lookupResult;
    const content = event.kind === 'message' || event.kind === 'document';
    const history = content ? await app.api.history(id) : null;
    clear(ui.itemBody, itemDetails(event, lookupResult, history));
  } catch (error) {
    clear(ui.itemBody, h('p', { class: 'form-status error' }, errorText(error)));
  }
}

function field(name, ...value) {
  return [h('dt', {}, name), h('dd', {}, ...value)];
}

function idLink(id) {
  const known = app.byId.get(id) ?? app.fetched.get(id);
  return h(
    'button',
    { type: 'button', class: 'link', onclick: () => showItem(id) },
    known ? `#${known.seq} ${describe(known, 50)}` : id,
  );
}

function itemDetails(event, lookupResult, history) {
  const deletedBy = lookupResult.deletedBy;
  const list = [
    field('seq', `#${event.seq}`),
    field('time', event.timestamp),
    field('id', h('code', {}, event.id)),
    field('source', event.source),
  ];
  if (event.sessionId) list.push(field('session', event.sessionId));
  if (event.actor) list.push(field('actor', event.actor));
  if (event.kind === 'message') list.push(field('speaker', event.speaker));
  if (event.kind === 'document')
    list.push(field('name', event.name), field('media type', event.mediaType));
  if (event.kind === 'recall')
    list.push(
      field('query', event.query),
      field(
        'recalled',
        event.recalled.length
          ? h(
              'ul',
              {},
              event.recalled.map((id) => h('li', {}, idLink(id))),
            )
          : 'nothing',
      ),
    );
  if (event.kind === 'deletion')
    list.push(
      field('reason', event.reason),
      field('requested by', event.requestedBy ?? '—'),
      field(
        'targets',
        h(
          'ul',
          {},
          event.targets.map((id) => h('li', {}, idLink(id))),
        ),
      ),
    );
  const body = [
    h(
      'h3',
      {},
      kindBadge(event.kind),
      ' ',
      event.kind === 'message' || event.kind === 'document' ? describe(event, 50) : `#${event.seq}`,
    ),
    deletedBy
      ? h(
          'p',
          { class: 'deleted-note' },
          'Deleted at ',
          h(
            'button',
            { type: 'button', class: 'link', onclick: () => showItem(deletedBy.id) },
            `#${deletedBy.seq}`,
          ),
          ` by ${deletedBy.requestedBy ?? 'unknown'}: `,
          h('q', {}, deletedBy.reason),
          '. It stays in the log but is no longer visible, searchable or recallable.',
        )
      : null,
    h('dl', { class: 'fields' }, list.flat()),
  ];
  if (event.kind === 'message')
    body.push(h('pre', { class: deletedBy ? 'content struck' : 'content' }, event.content));
  if (event.kind === 'document')
    body.push(h('pre', { class: deletedBy ? 'content struck' : 'content' }, event.text));
  if (history) {
    body.push(
      h(
        'h4',
        {},
        `Recalled ${history.recalls.length} time${history.recalls.length === 1 ? '' : 's'}`,
      ),
    );
    body.push(
      history.recalls.length
        ? h(
            'ol',
            { class: 'recall-uses' },
            history.recalls.map((use) =>
              h(
                'li',
                {},
                h(
                  'button',
                  { type: 'button', class: 'link', onclick: () => showItem(use.recallId) },
                  `#${use.seq}`,
                ),
                ' ',
                h('q', {}, clip(use.query, 60)),
                use.actor ? ` by ${use.actor}` : '',
                ' · ',
                timeOf(use.timestamp),
              ),
            ),
          )
        : h('p', { class: 'hint' }, 'Never entered a context.'),
    );
  }
  return body;
}

// ---------------------------------------------------------------- forms

function formStatus(form) {
  return form.querySelector('.form-status') ?? form.parentElement.querySelector('.form-status');
}

function values(form) {
  const out = {};
  for (const [key, value] of new FormData(form))
    if (String(value).trim() !== '') out[key] = String(value);
  return out;
}

async function submit(form, action, done) {
  const line = formStatus(form);
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  status(line, 'Working…');
  try {
    const result = await action();
    status(line, done(result));
    return result;
  } catch (error) {
    status(line, errorText(error), true);
    return undefined;
  } finally {
    button.disabled = false;
    if (form === ui.deleteForm) updateSlider();
  }
}

ui.memoryForm.addEventListener('submit', (e) => {
  e.preventDefault();
  if (ui.memoryId.checkValidity()) void open(ui.memoryId.value.trim());
});

ui.messageForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = values(ui.messageForm);
  const stored = await submit(
    ui.messageForm,
    () => app.api.addMessage({ ...body, source: 'web' }),
    (m) => `Recorded as #${m.seq}.`,
  );
  if (stored) ui.messageForm.elements.content.value = '';
});

ui.documentForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = values(ui.documentForm);
  const stored = await submit(
    ui.documentForm,
    () => app.api.addDocument({ ...body, source: 'web' }),
    (d) => `Added as #${d.seq}.`,
  );
  if (stored) ui.documentForm.elements.text.value = '';
});

ui.deleteForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = values(ui.deleteForm);
  const targets = [...app.selected];
  const stored = await submit(
    ui.deleteForm,
    () => app.api.deleteContent({ targets, ...body, source: 'web' }),
    (d) =>
      `Deletion #${d.seq} recorded: ${d.targets.length} item${d.targets.length === 1 ? '' : 's'} no longer visible.`,
  );
  if (stored) {
    app.selected.clear();
    ui.deleteForm.elements.reason.value = '';
  }
});

ui.recallForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const { query, limit } = values(ui.recallForm);
  const result = await submit(
    ui.recallForm,
    () =>
      app.api.recall({
        query,
        limit: limit ? Number(limit) : undefined,
        actor: 'web',
        source: 'web',
      }),
    ({ recall, items }) =>
      `Recall #${recall.seq} is on record: ${items.length} item${items.length === 1 ? '' : 's'} entered the context.`,
  );
  if (result)
    clear(
      ui.recallResults,
      result.items.map((item) => resultRow(item)),
    );
});

ui.searchForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const { q } = values(ui.searchForm);
  const upToSeq = app.following ? undefined : app.viewSeq;
  const hits = await submit(
    ui.searchForm,
    () => app.api.search({ q, upToSeq }),
    (found) =>
      `${found.length} match${found.length === 1 ? '' : 'es'}${upToSeq === undefined ? ' now' : ` as of #${upToSeq}`}. Nothing was written.`,
  );
  if (hits)
    clear(
      ui.searchResults,
      hits.map((hit) => resultRow(hit.item, hit.score)),
    );
});

function resultRow(item, score) {
  return h(
    'li',
    { dataset: { id: item.id } },
    h(
      'button',
      { type: 'button', class: 'link', onclick: () => showItem(item.id) },
      `#${item.seq} ${describe(item, 120)}`,
    ),
    score === undefined
      ? null
      : h('span', { class: 'score', title: 'BM25 score' }, score.toFixed(2)),
  );
}

// ---------------------------------------------------------------- start

const initial = new URL(window.location.href).searchParams.get('memory') || 'default';
void open(initial);
