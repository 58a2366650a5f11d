// Reading a response body from a server we do not control (the trusted lists' publishers) without
// letting it exhaust memory: a declared or streamed size over the limit abandons the body.

/** Why a fetch of someone else's document failed; the message completes "<url> ...". */
export class FetchFailure extends Error {}

export const readBounded = async (response: Response, maxBytes: number): Promise<Uint8Array> => {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchFailure(`response larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new FetchFailure(`response larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
};
