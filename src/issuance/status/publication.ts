// Publishing each credential issuer's Status List Tokens at their `uri`
// (`{credential issuer}/status-lists/<list id>`), apart from the route serving it
// (./publicationRoute.ts). The token is built from the statusLists read model and
// signed when first asked for; it is then served as is until the list's version moves (a status
// changed: the next request signs the change, so it shows as soon as the read model has it) or it
// is `ttl` old, so a served token never claims more freshness than it has, or the issuer's key
// changed (a tenant activated a new issuer key: the retired one signs nothing more). Each token is
// signed with its issuer's key, `iss` its identifier. Conditional GET by ETag.
// Two representations, chosen by `Accept`: the JWT (the default, also for no `Accept` or one naming
// neither) and the CWT (`application/statuslist+cwt`); each signed, held and tagged on its own.
import { createHash } from 'node:crypto';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { findStatusList, nonValidEntries } from '../../../projections/statusLists.js';
import type { Issuer } from '../issuer.js';
import type { Sqlite } from '../../sqlite/connection.js';
import { statusListPath } from './paths.js';
import { buildStatusList, STATUS_LIST_CWT_MEDIA_TYPE, STATUS_LIST_MEDIA_TYPE } from '../../statusList/statusList.js';
import { signStatusListCwt, signStatusListToken } from './statusListToken.js';

/** Every list is 2 bits a status: VALID, INVALID and SUSPENDED, with room for one more. */
const ISSUED_BITS = 2;

/** What a list is published under: its issuer's identifier, key, and (a tenant's own issuer) tenant. */
export type ListIssuer = Pick<Issuer, 'identifier' | 'tenantId' | 'signingKey'>;

export interface PublicationOptions {
  readonly db: Sqlite;
  readonly ttlSeconds: number;
  readonly validitySeconds: number;
  readonly now: () => Date;
}

export type MediaType = typeof STATUS_LIST_MEDIA_TYPE | typeof STATUS_LIST_CWT_MEDIA_TYPE;

export interface Signed {
  readonly version: number;
  /** The leaf certificate of the key that signed it. */
  readonly signedBy: string | undefined;
  readonly iat: number;
  readonly token: string | Uint8Array;
  readonly etag: string;
}

const LIST_ID = /^[1-9]\d{0,8}$/;

/** No status list with this id. */
export interface StatusListNotFound {
  readonly _tag: 'StatusListNotFound';
}

export interface StatusListPublisher {
  /** The issuer's list's token in `mediaType`, as held while fresh, else signed anew; `listId` as the path gives it. */
  current(issuer: ListIssuer, listId: string, mediaType: MediaType): Promise<Either<StatusListNotFound, Signed>>;
}

export const statusListPublisher = (options: PublicationOptions): StatusListPublisher => {
  // Keyed by issuer, list id and media type.
  const signed = new Map<string, Signed>();
  // One signing per list and representation at a time, however many verifiers ask at once.
  const signing = new Map<string, Promise<Signed>>();

  const sign = async (key: string, issuer: ListIssuer, listId: number, mediaType: MediaType, size: number, version: number): Promise<Signed> => {
    const list = buildStatusList(ISSUED_BITS, size, nonValidEntries(options.db, listId, issuer.tenantId));
    const iat = Math.floor(options.now().getTime() / 1000);
    const content = {
      issuer: issuer.identifier,
      uri: `${issuer.identifier}${statusListPath(listId)}`,
      list,
      iat,
      exp: iat + options.validitySeconds,
      ttl: options.ttlSeconds,
    };
    const { signingKey } = issuer;
    const token = mediaType === STATUS_LIST_CWT_MEDIA_TYPE ? await signStatusListCwt(signingKey, content) : await signStatusListToken(signingKey, content);
    const etag = `"${createHash('sha256').update(token).digest('base64url')}"`;
    const result = { version, signedBy: signingKey.x5c[0], iat, token, etag };
    signed.set(key, result);
    return result;
  };

  const current = (issuer: ListIssuer, listId: number, mediaType: MediaType): Promise<Signed> | undefined => {
    const row = findStatusList(options.db, listId, issuer.tenantId);
    if (!row) return undefined;
    const key = `${issuer.tenantId ?? ''} ${listId} ${mediaType}`;
    const held = signed.get(key);
    const fresh =
      held && held.version === row.version && held.signedBy === issuer.signingKey.x5c[0] && options.now().getTime() < (held.iat + options.ttlSeconds) * 1000;
    if (fresh) return Promise.resolve(held);
    const pending = signing.get(key);
    if (pending) return pending;
    const started = sign(key, issuer, listId, mediaType, row.size, row.version).finally(() => signing.delete(key));
    signing.set(key, started);
    return started;
  };

  return {
    async current(issuer, listId, mediaType) {
      const token = LIST_ID.test(listId) ? current(issuer, Number(listId), mediaType) : undefined;
      return token === undefined ? left({ _tag: 'StatusListNotFound' }) : right(await token);
    },
  };
};
