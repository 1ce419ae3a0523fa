/* global document, window, URL, history */
// The memledger page: a live timeline over Server-Sent Events, a replay slider over seq, the
// state at that seq, recall and inspection search, an item panel with full history, and forms
// to add and delete. Plain ES modules, no build step. This module opens a memory and wires the
// aspects together; each aspect lives in its own module.
import { loadRights } from './access.js';
import { api } from './api.js';
import { resetAudit, wireAudit } from './audit.js';
import { clearStatusLines } from './form-submit.js';
import { wireForms } from './forms.js';
import { resetItemPanel } from './item-panel.js';
import { session, startSession } from './memory-session.js';
import { markSearchStale, resetResults, wireRecallAndSearch } from './recall-search.js';
import { followNewEvent, renderReplayControls, wireReplay } from './replay.js';
import { readState, renderState, renderStateError } from './state-panel.js';
import { connectTimeline, resetTimeline, setConnection } from './timeline.js';
import { clear, h } from './view.js';

const memoryForm = document.getElementById('memory-form');
const memoryInput = document.getElementById('memory-id');
const memoryList = document.getElementById('memory-list');

/** Opens `memoryId`: a blank page, its current state, then its live stream. */
async function open(memoryId) {
  const opened = startSession(memoryId);
  memoryInput.value = memoryId;
  const url = new URL(window.location.href);
  url.searchParams.set('memory', memoryId);
  history.replaceState(null, '', url);
  document.title = `memledger — ${memoryId}`;
  resetTimeline();
  resetResults();
  clearStatusLines();
  resetItemPanel();
  resetAudit();
  setConnection('connecting', 'connecting…');
  // What the key may do decides which tools are shown (and, on a server that needs a key,
  // asks for one first).
  await loadRights(opened.api);
  if (session !== opened) return;
  try {
    const page = await readState(opened, undefined);
    // The user may have opened another memory meanwhile: never draw this one's state over it.
    if (session !== opened) return;
    session.lastSeq = page.lastSeq;
    session.viewSeq = page.lastSeq;
    renderReplayControls();
    await renderState(page);
    connectTimeline(page.lastSeq, () => {
      followNewEvent();
      markSearchStale();
    });
  } catch (error) {
    if (session !== opened) return;
    setConnection('offline', `offline — ${error.message}`);
    renderStateError(error);
  }
  void refreshMemoryList();
}

/** Offers the existing memories in the picker. */
async function refreshMemoryList() {
  try {
    const ids = await api('/api/memories');
    clear(
      memoryList,
      ids.map((id) => h('option', { value: id })),
    );
  } catch {
    // The list is a convenience: typing a memory id still works.
  }
}

memoryForm.addEventListener('submit', (e) => {
  e.preventDefault();
  if (memoryInput.checkValidity()) void open(memoryInput.value.trim());
});
wireReplay();
wireRecallAndSearch();
wireForms();
wireAudit();

void open(new URL(window.location.href).searchParams.get('memory') || 'default');
