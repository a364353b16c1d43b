/**
 * An object that stands for one made later (in a `beforeAll`): every property is read from
 * `current()` when used, methods bound to it. Lets a test file declare its fixture with `const`.
 */
export function lateBound<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_target, name) => {
      const target = current();
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The value, or a clear error when a test reads a fixture before its `beforeAll` made it. */
export function made<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is used before its beforeAll made it`);
  return value;
}
