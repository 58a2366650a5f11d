// What the resource API's routes share.
import type { Context } from 'koa';
import type { Json } from '../eventstore/port.js';
import type { ServiceContext } from '../featureContract.js';
import type { Reply } from './reply.js';

/** The largest JSON body a resource API route reads. */
export const JSON_LIMIT = 64 * 1024;

/**
 * The ports the resource API's routes use: no signing keys, and no key-encryption key (the data
 * keys wrap with it; uploads and the tenant's DID get the derivation root they need on their own).
 */
export interface ResourcesContext extends Pick<ServiceContext, 'config' | 'log' | 'store' | 'runner' | 'dataKeys'> {
  readonly now: () => Date;
  /**
   * Runs a write under the request's Idempotency-Key, if any, and sends its reply. `request` is
   * the decoded body: with method, path and If-Match it identifies "the same request".
   */
  readonly idempotent: (ctx: Context, request: Json, execute: () => Promise<Reply>) => Promise<void>;
}
