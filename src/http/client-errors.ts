/**
 * Requests Node's HTTP parser refuses before any route sees them (a space or a non-ASCII byte in
 * the path, headers over Node's 16 KiB, a request that timed out) get the API's JSON error shape
 * too, written on the raw socket from the server's `'clientError'` event, where the socket still
 * allows an answer. Node's default answer has an empty body.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpApiError, type HttpErrorCode } from './http-error.js';
import { publicError } from './memory-error.filter.js';

/** A parser or socket error as Node hands it to `'clientError'`. */
type ClientError = Error & { readonly code?: string };

/** The code and message of a request Node refused. */
function refusal(error: ClientError): { code: HttpErrorCode; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        code: 'REQUEST_TIMEOUT',
        message:
          'The request was not received in time: send the headers and the whole body promptly.',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'HEADERS_TOO_LARGE',
        message: 'The request headers are larger than the server accepts (16 KiB in all).',
      };
    default:
      return {
        code: 'MALFORMED_REQUEST',
        message: `The request is not valid HTTP/1.1 (${error.code ?? 'unknown'}): check the method, the path (no spaces or non-ASCII bytes; percent-encode them) and the headers.`,
      };
  }
}

/** The response Node is writing on this socket, if any (Node keeps it as `_httpMessage`). */
function responseStarted(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

/** Writes the error as a whole HTTP response and closes the connection once it is flushed. */
function answer(socket: Duplex, code: HttpErrorCode, message: string): void {
  const { status, body } = publicError(new HttpApiError(code, message));
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
    () => socket.destroy(),
  );
}

/** Answers a refused request with `{ code, message }` and closes the connection. */
export function answerClientError(error: ClientError, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || responseStarted(socket)) {
    socket.destroy();
    return;
  }
  const { code, message } = refusal(error);
  answer(socket, code, message);
}

/**
 * A connection went silent past the idle timeout: a request still waiting for its answer (a
 * body promised and not sent) gets 408 `REQUEST_TIMEOUT`; anything else is just closed.
 */
export function answerTimedOut(socket: Duplex): void {
  // Node sets `_httpMessage` to null once a response is done: an idle keep-alive connection
  // (its keep-alive timeout also lands here) has nothing to answer.
  const pending = (socket as Duplex & { _httpMessage?: unknown })._httpMessage != null;
  if (!pending || !socket.writable || responseStarted(socket)) {
    socket.destroy();
    return;
  }
  answer(
    socket,
    'REQUEST_TIMEOUT',
    'The connection was idle for too long: send the headers and the whole body promptly.',
  );
}
