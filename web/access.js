/* global document, window */
// What the key of this tab may do with the open memory: the tools it may not use are hidden
// (the server refuses them anyway), and the top bar says who the page acts as.
import { forgetToken } from './api.js';
import { h, clear } from './view.js';

const who = document.getElementById('who');

/** Shows only the tools whose right (`data-needs`) the key holds on the open memory. */
export function applyRights(rights) {
  const held = new Set(rights);
  for (const el of document.querySelectorAll('[data-needs]'))
    el.hidden = !el.dataset.needs.split(' ').every((right) => held.has(right));
}

/** Asks the server what the key may do with `memoryId`, then shows and hides the tools. */
export async function loadRights(memoryApi) {
  let me;
  try {
    me = await memoryApi.rights();
  } catch {
    // Unknown rights: show everything and let the server refuse what it refuses.
    applyRights(['read', 'recall', 'write', 'delete', 'erase']);
    return;
  }
  applyRights(me.rights ?? []);
  const name = me.recordedBy ? me.recordedBy.principal : null;
  clear(
    who,
    me.authenticationRequired
      ? [
          h('span', { class: 'who-name' }, `as ${name ?? 'unknown'}`),
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              id: 'change-key',
              onclick: () => {
                forgetToken();
                window.location.reload();
              },
            },
            'change key',
          ),
        ]
      : [],
  );
}
