// How the wallet reaches the connector: a fetch function it is given. The command line passes
// the global fetch; the tests pass one that reaches the service where it really listens and
// checks every answer against the OpenAPI document.
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

export interface WalletResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** An answer with its JSON body (`{}` when it has none); throws on a body that is not JSON. */
export const fetchJson = async <T>(fetch: Fetch, url: string, init?: RequestInit): Promise<WalletResponse<T>> => {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = {};
  try {
    if (text !== '') body = JSON.parse(text);
  } catch {
    throw new Error(`${url} answered ${response.status} with a body that is not JSON`);
  }
  return { status: response.status, headers: response.headers, body: body as T };
};
