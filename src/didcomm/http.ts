// HTTP to addresses taken from DID documents: node:http(s) with the guarded lookup
// (endpointSafety.ts) on the socket, bounded in time and in how much of the answer is read, and
// never following a redirect (the URL was checked, where it points to was not).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, type EndpointPolicy } from './endpointSafety.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** At most `maxBytes` of the body. */
  readonly body: Buffer;
  /** The body had more than `maxBytes`. */
  readonly truncated: boolean;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

/** The answer, or throws (a network failure, the lookup's refusal, a timeout or the signal's abort). */
export const send = (request: HttpRequest, policy: EndpointPolicy): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const signal = AbortSignal.any([timeout, request.signal]);
    const lookup = guardedLookup(policy);
    const make = request.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make(request.url, {
      method: request.method,
      headers: { 'user-agent': 'eudi-connector-didcomm', ...request.headers, ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }) },
      signal,
      ...(lookup ? { lookup } : {}),
    });
    req.on('error', (err) => reject(timeout.aborted ? Object.assign(new Error(`no answer within ${request.timeoutMs} ms`), { code: 'TIMEOUT' }) : err));
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      let read = 0;
      const done = (truncated: boolean): void => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).subarray(0, request.maxBytes), truncated });
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        chunks.push(chunk);
        if (read > request.maxBytes) {
          response.destroy();
          done(true);
        }
      });
      response.on('end', () => done(false));
      // The status decided; a body that breaks off after it changes nothing.
      response.on('error', () => done(read > request.maxBytes));
    });
    req.end(request.body);
  });
