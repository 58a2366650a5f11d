// JSON from outside is bounded in shape as well as in bytes. A body well under the size limit can
// nest thousands of levels deep: JavaScript parses it, but SQLite's JSON functions (read models)
// and recursive code further in cannot, so a deep value accepted here would fail later, where
// one tenant's input could stall everyone's. Checking once, at the edge, keeps such values out of
// the event store altogether.

/** The documented shape limits of every JSON document the service accepts (README, Operating safely). */
export const JSON_LIMITS = {
  /** Nesting of objects and arrays: `{"a":[1]}` is depth 2. */
  maxDepth: 64,
  /** Members of one object or items of one array. */
  maxMembers: 10_000,
} as const;

/** Why a document is refused, worded to follow "The request body is ...". */
export type ShapeViolation = string;

/**
 * The first way `value` exceeds JSON_LIMITS, or undefined when it is within them. Also refuses a
 * member named `__proto__`: nothing legitimate uses it, and code that copies objects with
 * assignment would turn it into a prototype change. Iterative, so any depth is safe to inspect.
 */
export function shapeViolation(value: unknown): ShapeViolation | undefined {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > JSON_LIMITS.maxDepth) return `nested deeper than ${JSON_LIMITS.maxDepth} levels`;
    const members = Array.isArray(current) ? current : Object.values(current);
    if (members.length > JSON_LIMITS.maxMembers) return `wider than ${JSON_LIMITS.maxMembers} members in one object or array`;
    if (!Array.isArray(current) && Object.prototype.hasOwnProperty.call(current, '__proto__')) return 'using the reserved member name __proto__';
    for (const member of members) pending.push({ value: member, depth: depth + 1 });
  }
  return undefined;
}

export type BoundedJson = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/** `text` parsed as JSON within JSON_LIMITS; never throws. */
export function parseBoundedJson(text: string): BoundedJson {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // Deliberately not JSON.parse's message: recent V8 quotes part of the input in it.
    return { ok: false, reason: 'not valid JSON' };
  }
  const violation = shapeViolation(value);
  return violation === undefined ? { ok: true, value } : { ok: false, reason: violation };
}
