/* global document */
// The replay slider: choose the seq whose state the page shows. At the right end it follows
// new events ("now"); anywhere else the page shows the past and the timeline dims the future.
import { clearStatusLines } from './form-submit.js';
import { renderDeleteControls } from './forms.js';
import { session } from './memory-session.js';
import { resetResults } from './recall-search.js';
import { scheduleState } from './state-panel.js';
import { markFuture } from './timeline.js';
import { clear, formatTime, plural, timeOf } from './view.js';

const slider = document.getElementById('replay');
const sliderLabel = document.getElementById('replay-label');
const stepBack = document.getElementById('step-back');
const stepForward = document.getElementById('step-forward');
const nowButton = document.getElementById('now');

/**
 * Draws everything that depends on the replay point: the slider, its buttons and label, the
 * dimmed timeline, and the delete button.
 */
export function renderReplayControls() {
  const empty = session.lastSeq === null;
  slider.disabled = empty;
  slider.max = String(empty ? 0 : session.lastSeq);
  slider.value = String(empty ? 0 : (session.viewSeq ?? session.lastSeq));
  stepBack.disabled = empty || session.viewSeq <= 0;
  stepForward.disabled = empty || session.following;
  nowButton.disabled = empty || session.following;
  const { text, event } = sliderText();
  slider.setAttribute('aria-valuetext', event ? `${text} · ${formatTime(event.timestamp)}` : text);
  clear(sliderLabel, text, event ? [' · ', timeOf(event.timestamp)] : null);
  sliderLabel.classList.toggle('past', !session.following);
  markFuture(session.viewSeq);
  renderDeleteControls();
}

/**
 * After an event reached the timeline: when following, move the replay point (and the state)
 * along with it. The stream starts with recent history the state already shows, which moves
 * nothing: reloading the state for it dropped the answer of a "Show more" clicked meanwhile.
 */
export function followNewEvent() {
  if (session.following && session.viewSeq !== session.lastSeq) {
    session.viewSeq = session.lastSeq;
    scheduleState(60);
  }
  renderReplayControls();
}

/** Wires the slider (pointer and keyboard) and the step and Now buttons. */
export function wireReplay() {
  slider.addEventListener('input', () => moveTo(Number(slider.value)));
  stepBack.addEventListener('click', () => moveTo(session.viewSeq - 1));
  stepForward.addEventListener('click', () => moveTo(session.viewSeq + 1));
  nowButton.addEventListener('click', () => moveTo(session.lastSeq));
}

/** What the replay point is, and its event when the page has it (for the time). */
function sliderText() {
  if (session.lastSeq === null) return { text: 'empty memory', event: undefined };
  const event = [...session.streamed.values()].find((e) => e.seq === session.viewSeq);
  const what = event ? ` · ${event.kind}` : '';
  // Counted as the timeline counts: events, #n being one's seq (after #3: 4 of them).
  const total = plural(session.lastSeq + 1, 'event');
  const text = session.following
    ? `now · after #${session.viewSeq}${what} · all ${total}`
    : `after #${session.viewSeq}${what} · ${session.viewSeq + 1} of ${total}`;
  return { text, event };
}

function moveTo(seq) {
  if (session.lastSeq === null) return;
  const from = session.viewSeq;
  session.viewSeq = Math.max(0, Math.min(session.lastSeq, seq));
  if (session.viewSeq !== from) {
    // What the forms and tools last said (and found) was about the old replay point.
    clearStatusLines();
    resetResults();
  }
  session.following = session.viewSeq === session.lastSeq;
  // A selection made at "now" must not carry into the past, where deleting is off.
  if (!session.following) session.selected.clear();
  renderReplayControls();
  // Longer than after a new event: the slider sends a burst of inputs while it is dragged.
  scheduleState(120);
}
