// Parsers of option values. A value they refuse is a usage error: commander names the option,
// adds the reason, and the tool exits 2 before touching the store.
import { InvalidArgumentError } from 'commander';
import { allScopes, Scope } from '../streams/apiKey.js';
import type { DeliveryStatus } from '../streams/delivery.js';
import { parsePosition, type Position } from '../src/eventstore/port.js';

/** A comma-separated list with every item one of `known`. */
const listOf =
  <T extends string>(known: readonly T[]) =>
  (value: string): T[] => {
    const given = value.split(',').map((s) => s.trim());
    const bad = given.filter((s) => !(known as readonly string[]).includes(s));
    if (bad.length > 0) throw new InvalidArgumentError(`unknown: ${bad.join(', ')}; choose from ${known.join(', ')}`);
    return given as T[];
  };

export const scopesArgument: (value: string) => Scope[] = listOf(allScopes);

export const deliveryStatusesArgument: (value: string) => DeliveryStatus[] = listOf<DeliveryStatus>(['pending', 'delivered', 'abandoned', 'undeliverable']);

/** An ISO 8601 date-time in the future, normalised to UTC. */
export const futureDateTimeArgument = (value: string): string => {
  const time = Date.parse(value);
  if (Number.isNaN(time) || time <= Date.now()) throw new InvalidArgumentError('expected a future ISO 8601 date-time');
  return new Date(time).toISOString();
};

export const positionArgument = (value: string): Position => {
  const position = parsePosition(value);
  if (!position) throw new InvalidArgumentError('expected COMMIT/PREPARE, e.g. 42/42');
  return position;
};
