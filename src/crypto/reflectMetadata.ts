// The three Reflect metadata functions tsyringe (a dependency of @peculiar/x509) insists on at
// load time. The `reflect-metadata` package is not among our dependencies and x509 records no
// design-time types, so a WeakMap-backed subset is enough. Import this module before
// @peculiar/x509; src/crypto/x509.ts does.
type MetadataMap = Map<unknown, unknown>;
const store = new WeakMap<object, MetadataMap>();

interface ReflectMetadata {
  getMetadata?: (key: unknown, target: object) => unknown;
  getOwnMetadata?: (key: unknown, target: object) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: object) => void;
}

const reflect = Reflect as typeof Reflect & ReflectMetadata;

if (typeof reflect.getMetadata !== 'function') {
  const own = (key: unknown, target: object): unknown => store.get(target)?.get(key);
  reflect.getOwnMetadata = own;
  reflect.getMetadata = (key, target) => {
    // Bounded by the prototype chain, which always ends in null.
    for (let current: object | null = target; current !== null; current = Object.getPrototypeOf(current) as object | null) {
      const map = store.get(current);
      if (map?.has(key)) return map.get(key);
    }
    return undefined;
  };
  reflect.defineMetadata = (key, value, target) => {
    const map = store.get(target) ?? new Map<unknown, unknown>();
    map.set(key, value);
    store.set(target, map);
  };
}
