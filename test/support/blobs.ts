// The blob a resource was made from, as its stream records it.
import type { TestService } from './service.js';

/** `blobId` of the first event of a credential, file or presentation stream ('' if there is none). */
export const blobIdOf = async (s: TestService, stream: string): Promise<string> => {
  const read = await s.service.store.readStream(stream, { maxCount: 1 });
  return read._tag === 'Found' ? String((read.events[0]!.data as { blobId: string }).blobId) : '';
};
