/* global clearTimeout */
// What the page knows about the memory it has open. Every other module reads the live `session`
// binding; async work captures the session it started with and compares it to `session` when it
// resumes, so a reply for a memory the user has since left is dropped instead of drawn.
import { memoryApi } from './api.js';

/** The open memory; replaced as a whole by `startSession`. */
export let session = null;

/** Closes the previous memory's stream and retry timer, and opens `memoryId` with a blank slate. */
export function startSession(memoryId) {
  if (session) {
    session.source?.close();
    clearTimeout(session.retry);
  }
  session = {
    memoryId,
    api: memoryApi(memoryId),
    streamed: new Map(), // events seen on the stream (the newest the timeline keeps)
    fetched: new Map(), // events looked up by id (deleted content outside the timeline)
    lastSeq: null,
    viewSeq: null, // the replay point: the state shown is the state after this seq
    following: true, // the replay point moves with each new event
    source: null,
    retry: null,
    selected: new Set(), // item ids ticked for deletion
    stateTicket: 0,
    stateTimer: null,
  };
  return session;
}

/** An event already on the page (streamed or fetched), or undefined. */
export function knownEvent(id) {
  return session.streamed.get(id) ?? session.fetched.get(id);
}

/** An event by id: from the page when known, else from the server (and kept). */
export async function lookupEvent(id) {
  const known = knownEvent(id);
  if (known) return known;
  const { event } = await session.api.event(id);
  session.fetched.set(id, event);
  return event;
}
