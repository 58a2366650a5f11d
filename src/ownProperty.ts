// Objects read and written by a name that comes from a message (a claim or element name, a
// namespace, a DCQL credential query id, an algorithm, an abbreviation): only own properties count,
// and a write defines a plain data property. `__proto__`, `constructor`, `toString`,
// `hasOwnProperty` or `valueOf` then select nothing inherited and change no prototype: a name
// from outside is only ever a name. (A fixed table is better still a Map.)

/** `record[name]` if it is the record's own property, else undefined. */
export const ownValue = <V>(record: Readonly<Record<string, V>>, name: string): V | undefined =>
  Object.hasOwn(record, name) ? record[name] : undefined;

/** `record[name] = value` as an own property, even for `__proto__`, which assignment would turn into a prototype change. */
export const defineOwn = <V>(record: Record<string, V>, name: string, value: V): void => {
  Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
};
