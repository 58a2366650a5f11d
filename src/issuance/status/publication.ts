// The public route serving each of the issuer's Status List Tokens at its `uri`
// (`{PUBLIC_URL}/status-lists/<list id>`). The token is built from the statusLists read model and
// signed when first asked for; it is then served as is until the list's version moves (a status
// changed: the next request signs the change, so it shows as soon as the read model has it) or it
// is `ttl` old, so a served token never claims more freshness than it has. Conditional GET by ETag.
// Two representations, chosen by `Accept`: the JWT (the default, also for no `Accept` or one naming
// neither) and the CWT (`application/statuslist+cwt`); each signed, held and tagged on its own.
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import { findStatusList, nonValidEntries } from '../../../projections/statusLists.js';
import type { IssuerSigningKey } from '../signingKey.js';
import { HttpError, notFound } from '../../http/problem.js';
import { noneMatchHits } from '../../http/conditional.js';
import type { Sqlite } from '../../sqlite/connection.js';
import { STATUS_LIST_ROUTE, statusListPath } from './paths.js';
import { buildStatusList, STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';
import { signStatusListCwt, signStatusListToken } from './statusListToken.js';

/** Every list is 2 bits a status: VALID, INVALID and SUSPENDED, with room for one more. */
const ISSUED_BITS = 2;

export interface PublicationOptions {
  readonly db: Sqlite;
  readonly signingKey: IssuerSigningKey;
  readonly publicUrl: string;
  readonly ttlSeconds: number;
  readonly validitySeconds: number;
  readonly now: () => Date;
}

type MediaType = typeof STATUS_LIST_MEDIA_TYPE | typeof STATUS_LIST_CWT_MEDIA_TYPE;

interface Signed {
  readonly version: number;
  readonly iat: number;
  readonly token: string | Uint8Array;
  readonly etag: string;
}

const LIST_ID = /^[1-9]\d{0,8}$/;

export const statusListRouter = (options: PublicationOptions): Router => {
  // Keyed by list id and media type.
  const signed = new Map<string, Signed>();
  // One signing per list and representation at a time, however many verifiers ask at once.
  const signing = new Map<string, Promise<Signed>>();

  const sign = async (key: string, listId: number, mediaType: MediaType, size: number, version: number): Promise<Signed> => {
    const list = buildStatusList(ISSUED_BITS, size, nonValidEntries(options.db, listId));
    const iat = Math.floor(options.now().getTime() / 1000);
    const content = {
      issuer: options.publicUrl,
      uri: `${options.publicUrl}${statusListPath(listId)}`,
      list,
      iat,
      exp: iat + options.validitySeconds,
      ttl: options.ttlSeconds,
    };
    const token = mediaType === STATUS_LIST_CWT_MEDIA_TYPE ? await signStatusListCwt(options.signingKey, content) : await signStatusListToken(options.signingKey, content);
    const etag = `"${createHash('sha256').update(token).digest('base64url')}"`;
    const result = { version, iat, token, etag };
    signed.set(key, result);
    return result;
  };

  const current = (listId: number, mediaType: MediaType): Promise<Signed> | undefined => {
    const row = findStatusList(options.db, listId);
    if (!row) return undefined;
    const key = `${listId} ${mediaType}`;
    const held = signed.get(key);
    const fresh = held && held.version === row.version && options.now().getTime() < (held.iat + options.ttlSeconds) * 1000;
    if (fresh) return Promise.resolve(held);
    const pending = signing.get(key);
    if (pending) return pending;
    const started = sign(key, listId, mediaType, row.size, row.version).finally(() => signing.delete(key));
    signing.set(key, started);
    return started;
  };

  const router = new Router();
  router.get(STATUS_LIST_ROUTE, async (http) => {
    const id = http.params['list_id'] ?? '';
    const mediaType = http.accepts(STATUS_LIST_MEDIA_TYPE, STATUS_LIST_CWT_MEDIA_TYPE) === STATUS_LIST_CWT_MEDIA_TYPE ? STATUS_LIST_CWT_MEDIA_TYPE : STATUS_LIST_MEDIA_TYPE;
    const token = LIST_ID.test(id) ? current(Number(id), mediaType) : undefined;
    if (token === undefined) throw new HttpError(notFound('No status list exists at this location.'));
    const { etag, token: body } = await token;
    http.set('Vary', 'Accept');
    http.set('ETag', etag);
    http.set('Cache-Control', `max-age=${options.ttlSeconds}`);
    // Public data, meant for verifiers of every origin (the draft asks for CORS).
    http.set('Access-Control-Allow-Origin', '*');
    if (noneMatchHits(http, etag)) {
      http.status = 304;
      return;
    }
    http.body = typeof body === 'string' ? body : Buffer.from(body);
    // After the body: Koa's body setter would pick text/plain or application/octet-stream.
    http.set('Content-Type', mediaType);
  });
  return router;
};
