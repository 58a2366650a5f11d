// Server-side filters of $all reads and subscriptions, on stream name or event type.
import type { StoredEvent } from './events.js';
import type { StreamsPbModule } from './protos.js';

export type EventPredicate = (e: StoredEvent) => boolean;

/** FilterOptions as the server's EventFilter: prefixes (any matches) or a regex, on one field. */
export const filterOf = (options: StreamsPbModule.ReadReq.Options): EventPredicate | undefined => {
  const filter = options.getFilter();
  if (!filter) return undefined;
  const expression = filter.getStreamIdentifier() ?? filter.getEventType();
  if (!expression) return undefined;
  const field = filter.hasStreamIdentifier() ? (e: StoredEvent) => e.streamId : (e: StoredEvent) => e.type;
  const prefixes = expression.getPrefixList();
  if (prefixes.length > 0) return (e) => prefixes.some((p) => field(e).startsWith(p));
  const regex = new RegExp(expression.getRegex());
  return (e) => regex.test(field(e));
};
