/* global document, FormData */
// How every form on the page submits: read its filled-in fields, disable its button while the
// request runs, and report the outcome (or the server's error) in the form's status line.
import { errorText, status } from './view.js';

/** The form's fields as strings; blank fields are left out so the server applies its defaults. */
export function formValues(form) {
  const out = {};
  for (const [key, value] of new FormData(form))
    if (String(value).trim() !== '') out[key] = String(value);
  return out;
}

/**
 * Runs `action` for `form` and writes `done(result)` (or the error) to its status line.
 * Resolves the result, or undefined when the request failed.
 */
export async function submitForm(form, action, done) {
  const line = statusLine(form);
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
  }
}

/** The status line sits inside the form, or (for the one-row tool forms) right after it. */
function statusLine(form) {
  return form.querySelector('.form-status') ?? form.parentElement.querySelector('.form-status');
}

/**
 * Empties the status line of every form and tool ("Recorded as #3."): each speaks of the replay
 * point and memory it was written at, so it goes when either changes.
 */
export function clearStatusLines() {
  for (const line of document.querySelectorAll('form .form-status, .tool > .form-status'))
    status(line, '');
}
