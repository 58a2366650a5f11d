// Stream category `cnonce`: one stream per spent c_nonce, `cnonce-<nonce id>`. A c_nonce is
// handed out without a write (it is MAC'd and carries its expiry, src/issuance/nonce/cNonce.ts); the
// first key proof that uses it creates this stream with expected revision `no_stream`, so a
// second use, on any instance, loses the append and is refused (streams/singleUse.ts).
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { singleUse } from './singleUse.js';

export const category = 'cnonce';
export const cNonceStream = (nonceId: string): string => streamName(category, nonceId);

export const CNonceUsed = eventCodec('CNonceUsed', t.type({ usedAt: t.string, expiresAt: t.string }));

/** Every event a c_nonce stream can hold. */
export const CNonceEvent = CNonceUsed;
export type CNonceEvent = t.TypeOf<typeof CNonceEvent>;

export const cNonce = singleUse<CNonceEvent>(category, CNonceEvent, 'CNonceUsed');
