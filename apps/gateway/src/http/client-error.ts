import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, httpStatusOf, toEnvelope, type ErrorCode } from '@verity/errors';
import { newId } from '@verity/keys';

/**
 * Fastify's `clientErrorHandler`: what the HTTP parser refuses before there is a request (a request line and
 * headers over the 16 KiB the parser takes, bytes that are not HTTP) is answered in the error envelope, like
 * every other refusal, with a request id of its own; then the connection closes, as Node does. Nothing of the
 * request is repeated. A request timeout keeps Fastify's own answer.
 */
export function clientErrorHandler(docsBaseUrl: string) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      // Fastify's own answer (the gateway's timeouts are configured and documented elsewhere)
      const timeout = '{"error":"Request Timeout","message":"Client Timeout","statusCode":408}';
      if (socket.writable) socket.write(`HTTP/1.1 408 Request Timeout\r\nContent-Length: ${timeout.length}\r\nContent-Type: application/json\r\n\r\n${timeout}`);
      socket.destroy();
      return;
    }
    const code: ErrorCode = err.code === 'HPE_HEADER_OVERFLOW' ? 'request_header_too_large' : 'malformed_request';
    const status = httpStatusOf(code);
    const requestId = newId('request');
    const body = JSON.stringify(toEnvelope(new DomainError(code).toData(), requestId, docsBaseUrl));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
