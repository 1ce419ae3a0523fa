/* global document */
// The recall audit: what a principal recalled from the open memory between two times, and
// what each recall put in the context (each item as the log holds it now: an erased one shows
// the act, never its words).
import { formValues, submitForm } from './form-submit.js';
import { itemLink } from './item-panel.js';
import { session } from './memory-session.js';
import { clear, describe, h, plural, principalText, timeOf } from './view.js';

const form = document.getElementById('audit-form');
const results = document.getElementById('audit-results');

/** Empties the audit results (another memory was opened). */
export function resetAudit() {
  clear(results);
}

/** A `datetime-local` value as an ISO time with the browser's offset, or undefined. */
function isoOf(local) {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

function auditedRecall({ recall, items }) {
  return h(
    'li',
    { class: 'audited-recall', dataset: { id: recall.id } },
    h(
      'p',
      {},
      itemLink(recall.id, `#${recall.seq}`),
      ' ',
      timeOf(recall.timestamp),
      ' ',
      h('q', {}, recall.query),
      ` · recorded by ${principalText(recall.recordedBy) ?? 'nobody authenticated'}`,
      recall.actor ? ` · actor ${recall.actor}` : '',
    ),
    items.length
      ? h(
          'ul',
          { class: 'audited-items' },
          items.map(({ event, deletedBy }) =>
            h('li', {}, itemLink(event.id, describe(event, 80), deletedBy ? 'struck' : undefined)),
          ),
        )
      : h('p', { class: 'hint' }, 'It returned nothing.'),
  );
}

/** Wires the audit form to the open memory. */
export function wireAudit() {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const { principal, from, to } = formValues(form);
    const current = session;
    const page = await submitForm(
      form,
      () => current.api.recallAudit({ principal, from: isoOf(from), to: isoOf(to) }),
      (p) =>
        `${plural(p.recalls.length, 'recall')}${p.next === null ? '' : ' (more further on in the log)'}.`,
    );
    if (page && current === session) clear(results, page.recalls.map(auditedRecall));
  });
}
