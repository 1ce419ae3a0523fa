/* global document */
// The forms that write content: add a message, add a document, delete the selected items (and
// with "erase too", erase them in the same append).
// The selection itself is ticked in the state panel; this module draws what it allows.
import { submitForm, formValues } from './form-submit.js';
import { session } from './memory-session.js';
import { plural } from './view.js';

const messageForm = document.getElementById('message-form');
const documentForm = document.getElementById('document-form');
const deleteForm = document.getElementById('delete-form');
const deleteButton = document.getElementById('delete-button');
const deleteHint = document.getElementById('delete-hint');

/**
 * Enables the delete button only at "now" with something selected: deleting from a past
 * replay point would delete items the user cannot see as they are now.
 */
export function renderDeleteControls() {
  const count = session.selected.size;
  deleteHint.hidden = session.following && count > 0;
  deleteButton.disabled = !session.following || count === 0;
  deleteButton.textContent = count ? `Delete ${count} selected` : 'Delete selected';
}

/** Wires the add and delete forms to the open memory. */
export function wireForms() {
  messageForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = formValues(messageForm);
    const stored = await submitForm(
      messageForm,
      () => session.api.addMessage({ ...body, source: 'web' }),
      (m) => `Recorded as #${m.seq}.`,
    );
    if (stored) messageForm.elements.content.value = '';
  });

  documentForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = formValues(documentForm);
    const stored = await submitForm(
      documentForm,
      () => session.api.addDocument({ ...body, source: 'web' }),
      (d) => `Added as #${d.seq}.`,
    );
    if (stored) documentForm.elements.text.value = '';
  });

  deleteForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const { erase, ...body } = formValues(deleteForm);
    const targets = [...session.selected];
    const stored = await submitForm(
      deleteForm,
      () =>
        session.api.deleteContent({
          targets,
          ...body,
          source: 'web',
          ...(erase ? { erase: true } : {}),
        }),
      (d) =>
        d.erasure
          ? `Deletion #${d.deletion.seq} and erasure #${d.erasure.seq} recorded: ${plural(d.erasure.targets.length, 'item')} erased for good.`
          : `Deletion #${d.seq} recorded: ${plural(d.targets.length, 'item')} no longer visible.`,
    );
    // submitForm re-enabled the button; whether it may stay enabled depends on the selection.
    renderDeleteControls();
    if (stored) {
      session.selected.clear();
      deleteForm.elements.reason.value = '';
      deleteForm.elements.erase.checked = false;
    }
  });
}
