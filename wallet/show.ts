// JSON for people: indented where a value does not fit on a line, on one line where it does, and
// with long strings (certificates, SD-JWTs, base64 blobs) cut to their beginning and their length,
// so a request object or a callback fits on a screen.
const LONG = 72;
const WIDTH = 100;

const shorten = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && value.length > LONG ? `${value.slice(0, 48)}… (${value.length} chars)` : value;

const render = (value: unknown, indent: string): string => {
  const flat = JSON.stringify(value);
  if (typeof value !== 'object' || value === null || indent.length + flat.length <= WIDTH) return flat;
  const inner = `${indent}  `;
  const lines = Array.isArray(value)
    ? value.map((item) => inner + render(item, inner))
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${render(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
};

export const showJson = (value: unknown): string => render(JSON.parse(JSON.stringify(value, shorten)) as unknown, '');

/** A certificate's subject on one line. */
export const showSubject = (subject: string): string => subject.split('\n').join(', ');
