// Conditional requests (RFC 9110 section 13) on resource revisions. If-Match uses the strong
// comparison, so a weak tag never matches; If-None-Match the weak one.
import type { Context } from 'koa';
import { HttpError, invalidRequest, preconditionRequired } from './problem.js';

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

interface Tag {
  readonly weak: boolean;
  readonly opaque: string;
}

/** `*` or a list of entity tags; undefined for a malformed header. */
const parseTags = (header: string): '*' | Tag[] | undefined => {
  if (header.trim() === '*') return '*';
  const tags: Tag[] = [];
  for (const part of header.split(',')) {
    const text = part.trim();
    if (!ENTITY_TAG.test(text)) return undefined;
    tags.push({ weak: text.startsWith('W/'), opaque: text.replace(/^W\//, '') });
  }
  return tags;
};

const malformed = (name: string, value: string): HttpError =>
  new HttpError(
    invalidRequest(`${name} is not a list of entity tags.`, [{ location: `header.${name.toLowerCase()}`, message: 'expected entity tags or *', value }]),
  );

/**
 * The If-Match precondition of a write where it is optional: undefined when absent, else a test
 * of the current etag. `*` matches any existing revision.
 */
export const ifMatch = (ctx: Context): ((currentEtag: string) => boolean) | undefined => {
  const header = ctx.get('If-Match');
  if (header === '') return undefined;
  const tags = parseTags(header);
  if (tags === undefined) throw malformed('If-Match', header);
  return (current) => tags === '*' || tags.some((tag) => !tag.weak && tag.opaque === current);
};

/** The If-Match precondition of a write, required here: missing -> 428. */
export const requireIfMatch = (ctx: Context): ((currentEtag: string) => boolean) => {
  const matches = ifMatch(ctx);
  if (matches === undefined) throw new HttpError(preconditionRequired('Send If-Match with the etag of the revision you are changing.'));
  return matches;
};

/** Whether If-None-Match names the current etag, so the read can answer 304. */
export const noneMatchHits = (ctx: Context, currentEtag: string): boolean => {
  const header = ctx.get('If-None-Match');
  if (header === '') return false;
  const tags = parseTags(header);
  if (tags === undefined) throw malformed('If-None-Match', header);
  return tags === '*' || tags.some((tag) => tag.opaque === currentEtag);
};
