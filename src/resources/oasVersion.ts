// `X-Service-OAS-Version` selects the API line: the current 0.40 line by default, or the 0.38
// line (named 0.38.0 in its announcement, 0.38.2 in the header) kept for migrating clients. It
// only changes drafts; any version the service does not serve is refused, on every route.
import type { Context, Next } from 'koa';
import { HttpError, invalidRequest } from '../http/problem.js';

export type ApiLine = '0.40' | '0.38';

export const apiLineOf = (ctx: Context): ApiLine => {
  const header = ctx.get('X-Service-OAS-Version').trim();
  if (header === '' || /^0\.40\.\d{1,4}$/.test(header)) return '0.40';
  if (header === '0.38.2' || header === '0.38.0') return '0.38';
  throw new HttpError(
    invalidRequest('This API version is not served; use 0.40.x or 0.38.2.', [
      { location: 'header.x-service-oas-version', message: 'expected 0.40.x or 0.38.2', value: header },
    ]),
  );
};

export const requireKnownApiLine = async (ctx: Context, next: Next): Promise<void> => {
  apiLineOf(ctx);
  await next();
};
