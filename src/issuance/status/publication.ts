// The public route serving each of the issuer's Status List Tokens at its `uri`
// (`{PUBLIC_URL}/status-lists/<list id>`). The token is built from the statusLists read model and
// signed when first asked for; it is then served as is until the list's version moves (a status
// changed: the next request signs the change, so it shows as soon as the read model has it) or it
// is `ttl` old, so a served token never claims more freshness than it has. Conditional GET by ETag.
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import { findStatusList, nonValidEntries } from '../../../projections/statusLists.js';
import type { IssuerSigningKey } from '../sdJwtVc.js';
import { HttpError, notFound } from '../../http/problem.js';
import { noneMatchHits } from '../../http/conditional.js';
import type { Sqlite } from '../../sqlite/connection.js';
import { STATUS_LIST_ROUTE, statusListPath } from './paths.js';
import { buildStatusList, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';
import { signStatusListToken } from './statusListToken.js';

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

interface Signed {
  readonly version: number;
  readonly iat: number;
  readonly token: string;
  readonly etag: string;
}

const LIST_ID = /^[1-9]\d{0,8}$/;

export const statusListRouter = (options: PublicationOptions): Router => {
  const signed = new Map<number, Signed>();
  // One signing per list at a time, however many verifiers ask at once.
  const signing = new Map<number, Promise<Signed>>();

  const sign = async (listId: number, size: number, version: number): Promise<Signed> => {
    const list = buildStatusList(ISSUED_BITS, size, nonValidEntries(options.db, listId));
    const iat = Math.floor(options.now().getTime() / 1000);
    const token = await signStatusListToken(options.signingKey, {
      issuer: options.publicUrl,
      uri: `${options.publicUrl}${statusListPath(listId)}`,
      list,
      iat,
      exp: iat + options.validitySeconds,
      ttl: options.ttlSeconds,
    });
    const etag = `"${createHash('sha256').update(token).digest('base64url')}"`;
    const result = { version, iat, token, etag };
    signed.set(listId, result);
    return result;
  };

  const current = (listId: number): Promise<Signed> | undefined => {
    const row = findStatusList(options.db, listId);
    if (!row) return undefined;
    const held = signed.get(listId);
    const fresh = held && held.version === row.version && options.now().getTime() < (held.iat + options.ttlSeconds) * 1000;
    if (fresh) return Promise.resolve(held);
    const pending = signing.get(listId);
    if (pending) return pending;
    const started = sign(listId, row.size, row.version).finally(() => signing.delete(listId));
    signing.set(listId, started);
    return started;
  };

  const router = new Router();
  router.get(STATUS_LIST_ROUTE, async (http) => {
    const id = http.params['list_id'] ?? '';
    const token = LIST_ID.test(id) ? current(Number(id)) : undefined;
    if (token === undefined) throw new HttpError(notFound('No status list exists at this location.'));
    const { etag, token: jwt } = await token;
    http.set('ETag', etag);
    http.set('Cache-Control', `max-age=${options.ttlSeconds}`);
    // Public data, meant for verifiers of every origin (the draft asks for CORS).
    http.set('Access-Control-Allow-Origin', '*');
    if (noneMatchHits(http, etag)) {
      http.status = 304;
      return;
    }
    http.body = jwt;
    // After the body: Koa's body setter would pick text/plain.
    http.set('Content-Type', STATUS_LIST_MEDIA_TYPE);
  });
  return router;
};
