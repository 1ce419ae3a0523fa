/* global document, fetch, sessionStorage, EventSource, URLSearchParams */
// The HTTP API as the page uses it: JSON in and out, errors as { code, message, issues },
// and the credential (an access key, a JWT or the API token), asked for on a 401 and kept in
// sessionStorage for this tab only.

const TOKEN_KEY = 'memledger.token';

/** An API error: the server's code, message and failing fields. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? 'HTTP_' + status;
    this.issues = body?.issues ?? [];
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** Forgets the credential of this tab (the page asks again on the next 401). */
export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Shows the token dialog; resolves true when a token was entered. */
function askForToken(wrong) {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  const title = document.getElementById('token-title');
  title.textContent = wrong ? 'That key was refused — try again' : 'This server needs a key';
  input.value = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        const ok = dialog.returnValue === 'ok' && input.value.trim() !== '';
        if (ok) sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        resolve(ok);
      },
      { once: true },
    );
    dialog.showModal();
  });
}

let pendingAsk = null;

/** Calls the API; on 401 asks for a token (once for concurrent calls) and retries. */
export async function api(path, { method = 'GET', body } = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token()) headers.Authorization = `Bearer ${token()}`;
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const data = text ? JSON.parse(text) : null;
    if (response.ok) return data;
    if (response.status === 401 && attempt < 5) {
      pendingAsk ??= askForToken(Boolean(token())).finally(() => (pendingAsk = null));
      if (await pendingAsk) continue;
    }
    throw new ApiError(response.status, data);
  }
}

/** The routes of one memory. */
export function memoryApi(memoryId) {
  const base = `/api/memories/${encodeURIComponent(memoryId)}`;
  const query = (params) => {
    const defined = Object.entries(params).filter(([, v]) => v !== undefined && v !== '');
    return defined.length ? `?${new URLSearchParams(defined)}` : '';
  };
  return {
    state: (params = {}) => api(`${base}/state${query(params)}`),
    recallAudit: (params = {}) => api(`${base}/recalls${query(params)}`),
    rights: () => api(`/api/access/me${query({ memory: memoryId })}`),
    search: (params) => api(`${base}/search${query(params)}`),
    event: (id) => api(`${base}/events/${id}`),
    history: (id) => api(`${base}/items/${id}/history`),
    recall: (body) => api(`${base}/recall`, { method: 'POST', body }),
    addMessage: (body) => api(`${base}/messages`, { method: 'POST', body }),
    addDocument: (body) => api(`${base}/documents`, { method: 'POST', body }),
    deleteContent: (body) => api(`${base}/deletions`, { method: 'POST', body }),
    /** EventSource cannot send headers: the stream route takes the key as a query parameter. */
    stream: (fromSeq) =>
      new EventSource(
        `${base}/events/stream${query({ fromSeq, access_token: token() || undefined })}`,
      ),
  };
}
