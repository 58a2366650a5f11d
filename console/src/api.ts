// The console's only way to the management API. The API key is held here, in this module's memory
// and nowhere else (not in a URL, a cookie or any storage): it goes out only in the Authorization
// header, and a reload forgets it.

/** A problem+json answer (or a network failure) as the pages show it: its title and detail. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
  ) {
    super(`${title}: ${detail}`);
  }
}

let key: string | undefined;

export const signIn = (secret: string): void => {
  key = secret;
};

export const signOut = (): void => {
  key = undefined;
};

const headers = (extra: Record<string, string> = {}): Headers => {
  const all = new Headers(extra);
  if (key !== undefined) all.set('Authorization', `Bearer ${key}`);
  return all;
};

const problemOf = async (response: Response): Promise<ProblemError> => {
  try {
    const body = (await response.json()) as { title?: unknown; detail?: unknown };
    return new ProblemError(response.status, String(body.title ?? response.statusText), String(body.detail ?? ''));
  } catch {
    return new ProblemError(response.status, response.statusText || 'Error', `The service answered ${response.status}.`);
  }
};

export interface Answer<T> {
  readonly body: T;
  readonly etag: string | null;
}

/** A JSON request; a problem answer is thrown as a ProblemError. */
export const request = async <T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer<T>> => {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(body === undefined ? extra : { 'Content-Type': 'application/json', ...extra }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch {
    throw new ProblemError(0, 'Network error', 'The connector could not be reached.');
  }
  if (!response.ok) throw await problemOf(response);
  return { body: (await response.json()) as T, etag: response.headers.get('ETag') };
};

export const get = async <T>(path: string): Promise<T> => (await request<T>('GET', path)).body;

/** A file the service answers (an export archive), as a Blob; a problem answer is thrown as a ProblemError. */
export const download = async (path: string): Promise<Blob> => {
  let response: Response;
  try {
    response = await fetch(path, { headers: headers(), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch {
    throw new ProblemError(0, 'Network error', 'The connector could not be reached.');
  }
  if (!response.ok) throw await problemOf(response);
  return response.blob();
};

/**
 * Follows a text/event-stream with fetch() streaming, so that the key goes in a header
 * (EventSource can send none). Calls `onEvent` with each `data` parsed as JSON until `signal`
 * aborts or the stream ends.
 */
export const follow = async (path: string, onEvent: (data: unknown) => void, signal: AbortSignal): Promise<void> => {
  const response = await fetch(path, { headers: headers({ Accept: 'text/event-stream' }), cache: 'no-store', credentials: 'omit', signal });
  if (!response.ok || !response.body) throw await problemOf(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data !== '') onEvent(JSON.parse(data));
    }
  }
};
