// The auditor's view of one stream: every event in order with its revision, time, type and
// metadata (who, in answer to which request), its data with every sealed value left out. A stream
// is shown only to a key of the tenant named in its first event, holding the scope its category
// belongs to; to anyone else it does not exist.
import type { Scope } from '../../streams/apiKey.js';
import type { Json, RecordedEvent } from '../../streams/kernel.js';
import type { EventStore } from '../eventstore/port.js';
import type { Principal } from '../tenancy/authenticate.js';

/** The categories the console shows, by the scope that sees them; any other stream is not shown. */
const CATEGORY_SCOPES: Readonly<Record<string, Scope>> = {
  presentation: 'connector',
  offer: 'connector',
  delivery: 'connector',
  credentialstatus: 'connector',
  apikey: 'resources',
  credential: 'resources',
  draft: 'resources',
  file: 'resources',
  schema: 'resources',
  didcomm: 'resources',
  supportrequest: 'resources',
  credentialconfiguration: 'admin',
  tenantsettings: 'admin',
  tenantverifier: 'admin',
};

export const categoryOf = (streamId: string): string => streamId.slice(0, Math.max(0, streamId.indexOf('-')));

/** The scope that sees a stream of this name, or undefined for a stream the console never shows. */
export const scopeOfStream = (streamId: string): Scope | undefined => CATEGORY_SCOPES[categoryOf(streamId)];

/** Where a value was sealed with a flow's data key, or a field that only ever holds presented values. */
export const SEALED = '[sealed: not shown]';

const isObject = (value: Json): value is { readonly [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

const isSealed = (value: { readonly [key: string]: Json }): boolean =>
  typeof value['ciphertext'] === 'string' && typeof value['iv'] === 'string' && typeof value['tag'] === 'string';

/** The data with each sealed value (a data-key ciphertext) replaced by SEALED: no claim value, not even encrypted. */
export const withoutSealed = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(withoutSealed);
  if (!isObject(value)) return value;
  if (isSealed(value)) return SEALED;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withoutSealed(member)]));
};

export interface ShownEvent {
  readonly revision: number;
  readonly position: string;
  readonly id: string;
  readonly type: string;
  readonly created: string;
  readonly metadata: Json;
  readonly data: Json;
}

export const shownEvent = (event: RecordedEvent): ShownEvent => ({
  revision: event.revision,
  position: `${event.position.commit}/${event.position.prepare}`,
  id: event.id,
  type: event.type,
  created: event.created.toISOString(),
  metadata: event.metadata,
  data: withoutSealed(event.data),
});

const tenantOf = (events: readonly RecordedEvent[]): string | undefined => {
  for (const event of events) {
    const data = event.data;
    if (!isObject(data)) continue;
    const direct = data['tenantId'];
    if (typeof direct === 'string') return direct;
    // A delivery names its tenant in the callback it carries.
    const callback = data['callback'];
    if (callback !== undefined && isObject(callback) && typeof callback['tenantId'] === 'string') return callback['tenantId'];
  }
  return undefined;
};

/** Whether `principal` may see a stream of this name at all (before reading it). */
export const mayRead = (principal: Principal, streamId: string): boolean => {
  const scope = scopeOfStream(streamId);
  return scope !== undefined && principal.scopes.includes(scope);
};

/**
 * The stream's events, or undefined when the principal may not see it (another tenant's, a
 * category outside its scopes) or it does not exist: the same answer for each.
 */
export const readVisibleStream = async (store: EventStore, principal: Principal, streamId: string): Promise<readonly RecordedEvent[] | undefined> => {
  if (!mayRead(principal, streamId)) return undefined;
  const read = await store.readStream(streamId);
  if (read._tag !== 'Found' || tenantOf(read.events) !== principal.tenantId) return undefined;
  return read.events;
};
