// What the wallet-facing routes (requestObject/, response/) share at the edge: the shape of a
// state in a URI, the reply with `Cache-Control: no-store`, the form body read with its failures
// as values, and the event metadata of a wallet's step.
import type { Context } from 'koa';
import { right, left, type Either } from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../eventstore/handle.js';
import { readForm, type FormFields } from '../http/body.js';
import { HttpError } from '../http/problem.js';
import { requestIdOf } from '../log.js';
import type { UnreadableBody, WalletReply } from './errors.js';

// States are 256 random bits in base64url; anything else cannot name a session.
export const STATE = /^[A-Za-z0-9_-]{43}$/;

export const reply = (ctx: Context, answer: WalletReply): void => {
  ctx.status = answer.status;
  ctx.body = answer.body;
  ctx.set('Cache-Control', 'no-store');
};

/** Body errors (415, 413, 400) as values, for an OAuth error: the wallet reads `error`, not problem details. */
export const readWalletForm = async (ctx: Context, limitBytes: number): Promise<Either<UnreadableBody, FormFields>> => {
  try {
    return right(await readForm(ctx, { limitBytes }));
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return left({ _tag: 'UnreadableBody', status: err.status, detail: err.problem.detail });
  }
};

export const walletMetadata = (ctx: Context): EventMetadata => ({ actor: 'wallet', requestId: requestIdOf(ctx) });
