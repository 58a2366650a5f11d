// Per-tenant request rate on the resource API: a fixed window, from the tenant's first request,
// counted in this instance's memory (several instances each allow the rate). Every answer
// advertises the policy and what is left, errors included
// (RateLimit-Policy / RateLimit, draft-ietf-httpapi-ratelimit-headers); past the quota, 429 with
// Retry-After until the window ends.
import type { Context, Next } from 'koa';
import { HttpError, setKeptHeaders, tooManyRequests } from '../http/problem.js';
import { principalOf } from '../tenancy/authenticate.js';

export const rateLimit = (quota: number, windowSeconds: number, now: () => Date) => {
  const windows = new Map<string, { start: number; used: number }>();
  const policy = `"tenant";q=${quota};w=${windowSeconds}`;
  return async (ctx: Context, next: Next): Promise<void> => {
    const tenantId = principalOf(ctx).tenantId;
    const at = now().getTime();
    const windowMs = windowSeconds * 1000;
    let window = windows.get(tenantId);
    if (!window || at >= window.start + windowMs) {
      window = { start: at, used: 0 };
      windows.set(tenantId, window);
    }
    const reset = Math.max(1, Math.ceil((window.start + windowMs - at) / 1000));
    if (window.used >= quota) {
      throw new HttpError(tooManyRequests(`More than ${quota} requests in ${windowSeconds} s; retry in ${reset} s.`), {
        'Retry-After': String(reset),
        'RateLimit-Policy': policy,
        RateLimit: `"tenant";r=0;t=${reset}`,
      });
    }
    window.used += 1;
    setKeptHeaders(ctx, { 'RateLimit-Policy': policy, RateLimit: `"tenant";r=${quota - window.used};t=${reset}` });
    await next();
  };
};
