/**
 * Finds and replaces string values in JSON text as sent, byte for byte: the model name mapping of
 * the native APIs changes one value and nothing else (key order, spacing, escapes, number
 * spellings, invalid UTF-8 in other strings all stay as the client wrote them).
 *
 * The scanner validates the whole document (RFC 8259 grammar) and works on bytes: every structural
 * character of JSON is ASCII, and no byte of a multi-byte UTF-8 sequence is, so no decoding is
 * needed to walk it. Keys are compared decoded (`"mod\u0065l"` is `model`, as every upstream parser
 * reads it), and a key that leads to a wanted value may appear once per object: with two, upstream
 * parsers disagree on which one counts (first or last), so the gateway could bill one model while
 * the provider runs another. Such a document is refused.
 */

/** Stands for any index of an array in a `JsonPath`. */
export const ANY_INDEX: unique symbol = Symbol('any index');

/** Keys and array positions from the document's root, e.g. `['requests', ANY_INDEX, 'model']`. */
export type JsonPath = readonly (string | typeof ANY_INDEX)[];

/** A string value found at a wanted path: where its literal (quotes included) lies, and its value. */
export interface FoundString {
  readonly path: readonly (string | number)[];
  readonly start: number;
  readonly end: number;
  readonly value: string;
}

export type JsonFieldProblem = 'invalid_json' | 'duplicate_key' | 'not_a_string' | 'too_deep';

/** The document cannot be mapped: not JSON, an ambiguous key, or a wanted value that is not a string. */
export class JsonFieldError extends Error {
  readonly problem: JsonFieldProblem;
  /** Where: the byte offset for `invalid_json`, otherwise the field path (`requests[0].model`). */
  readonly at: string;

  constructor(problem: JsonFieldProblem, at: string, message: string) {
    super(message);
    this.name = 'JsonFieldError';
    this.problem = problem;
    this.at = at;
  }
}

/** Deeper documents are refused rather than risk the stack; real request bodies nest far less. */
const MAX_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const decoder = new TextDecoder();

/** The string values of `bytes` at the `wanted` paths, in document order; throws `JsonFieldError`. */
export function findStrings(bytes: Uint8Array, wanted: readonly JsonPath[]): FoundString[] {
  const scanner = new Scanner(bytes, wanted);
  scanner.skipSpace();
  scanner.value(0, scanner.relation());
  scanner.skipSpace();
  if (scanner.pos !== bytes.length) scanner.fail('unexpected data after the JSON value');
  return scanner.found;
}

/** `bytes` with each span replaced by its text (UTF-8); spans must not overlap. */
export function replaceSpans(
  bytes: Uint8Array,
  spans: readonly { readonly start: number; readonly end: number; readonly text: string }[],
): Uint8Array {
  const encoder = new TextEncoder();
  const ordered = [...spans].sort((a, b) => a.start - b.start);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const span of ordered) {
    if (span.start < at) throw new RangeError('overlapping spans');
    parts.push(bytes.subarray(at, span.start), encoder.encode(span.text));
    at = span.end;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * `bytes` (a JSON object) with `"key":<valueJson>` inserted as its first member, nothing else
 * changed. For a field the client left out that the upstream must receive.
 */
export function insertFirstMember(bytes: Uint8Array, key: string, valueJson: string): Uint8Array {
  let at = 0;
  while (at < bytes.length && isSpace(bytes[at] as number)) at += 1;
  if (bytes[at] !== 0x7b) throw new JsonFieldError('invalid_json', `${at}`, 'the body is not a JSON object');
  let next = at + 1;
  while (next < bytes.length && isSpace(bytes[next] as number)) next += 1;
  const empty = bytes[next] === 0x7d;
  const member = `${JSON.stringify(key)}:${valueJson}${empty ? '' : ','}`;
  return replaceSpans(bytes, [{ start: at + 1, end: at + 1, text: member }]);
}

/** `requests[0].model` */
export function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${key}` : key),
    '',
  );
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** A path equal to a wanted one, a prefix of one, or neither. */
type Relation = 'match' | 'prefix' | 'none';

class Scanner {
  pos = 0;
  readonly found: FoundString[] = [];
  readonly #path: (string | number)[] = [];

  readonly bytes: Uint8Array;
  readonly wanted: readonly JsonPath[];

  constructor(bytes: Uint8Array, wanted: readonly JsonPath[]) {
    this.bytes = bytes;
    this.wanted = wanted;
  }

  fail(message: string): never {
    throw new JsonFieldError(
      'invalid_json',
      `${this.pos}`,
      `The body is not valid JSON: ${message} at byte ${this.pos}.`,
    );
  }

  skipSpace(): void {
    while (this.pos < this.bytes.length && isSpace(this.bytes[this.pos] as number)) this.pos += 1;
  }

  /** Scans one value; `target` is how its path relates to the wanted ones (see `relation`). */
  value(depth: number, target: Relation): void {
    if (depth > MAX_DEPTH) {
      throw new JsonFieldError('too_deep', `${this.pos}`, `The body nests deeper than ${MAX_DEPTH} levels.`);
    }
    const byte = this.bytes[this.pos];
    if (target === 'match' && byte !== QUOTE) {
      const at = formatPath(this.#path);
      throw new JsonFieldError('not_a_string', at, `The field \`${at}\` must be a string.`);
    }
    if (byte === 0x7b) this.#object(depth, target === 'prefix');
    else if (byte === 0x5b) this.#array(depth, target === 'prefix');
    else if (byte === QUOTE) this.#stringValue(target === 'match');
    else if (byte === 0x74) this.#literal('true');
    else if (byte === 0x66) this.#literal('false');
    else if (byte === 0x6e) this.#literal('null');
    else this.#number();
  }

  /** How the current path relates to the wanted ones: equal to one, a prefix of one, or neither. */
  relation(): Relation {
    let relation: Relation = 'none';
    for (const path of this.wanted) {
      if (path.length < this.#path.length) continue;
      const fits = this.#path.every((key, i) =>
        typeof key === 'number' ? path[i] === ANY_INDEX : path[i] === key,
      );
      if (!fits) continue;
      if (path.length === this.#path.length) return 'match';
      relation = 'prefix';
    }
    return relation;
  }

  /** Scans an object; `watch`: some wanted path goes through it (its keys are decoded and checked). */
  #object(depth: number, watch: boolean): void {
    const seen = new Set<string>();
    this.pos += 1;
    this.skipSpace();
    if (this.bytes[this.pos] === 0x7d) {
      this.pos += 1;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.pos] !== QUOTE) this.fail('expected a key');
      const start = this.pos;
      this.#skipString();
      const key = watch ? this.#decode(start, this.pos) : '';
      this.skipSpace();
      if (this.bytes[this.pos] !== 0x3a) this.fail('expected a colon');
      this.pos += 1;
      this.skipSpace();
      this.#path.push(key);
      const relation = watch ? this.relation() : 'none';
      if (relation !== 'none') {
        if (seen.has(key)) {
          const at = formatPath(this.#path);
          throw new JsonFieldError('duplicate_key', at, `The field \`${at}\` appears twice.`);
        }
        seen.add(key);
      }
      this.value(depth + 1, relation);
      this.#path.pop();
      this.skipSpace();
      const next = this.bytes[this.pos];
      this.pos += 1;
      if (next === 0x7d) return;
      if (next !== 0x2c) this.fail('expected a comma or a closing brace');
    }
  }

  #array(depth: number, watch: boolean): void {
    this.pos += 1;
    this.skipSpace();
    if (this.bytes[this.pos] === 0x5d) {
      this.pos += 1;
      return;
    }
    for (let index = 0; ; index += 1) {
      this.skipSpace();
      this.#path.push(index);
      this.value(depth + 1, watch ? this.relation() : 'none');
      this.#path.pop();
      this.skipSpace();
      const next = this.bytes[this.pos];
      this.pos += 1;
      if (next === 0x5d) return;
      if (next !== 0x2c) this.fail('expected a comma or a closing bracket');
    }
  }

  #stringValue(wanted: boolean): void {
    const start = this.pos;
    this.#skipString();
    if (wanted) {
      this.found.push({ path: [...this.#path], start, end: this.pos, value: this.#decode(start, this.pos) });
    }
  }

  /** Moves past a string literal, checking its escapes and that it holds no raw control character. */
  #skipString(): void {
    const { bytes } = this;
    this.pos += 1;
    for (;;) {
      const byte = bytes[this.pos];
      if (byte === undefined) this.fail('unterminated string');
      if (byte === QUOTE) {
        this.pos += 1;
        return;
      }
      if (byte < 0x20) this.fail('control character in a string');
      if (byte === BACKSLASH) {
        const escaped = bytes[this.pos + 1];
        if (escaped === 0x75) {
          for (let i = 2; i < 6; i += 1) {
            if (!isHex(bytes[this.pos + i])) this.fail('bad \\u escape');
          }
          this.pos += 6;
          continue;
        }
        // " \ / b f n r t
        if (escaped === undefined || !'"\\/bfnrt'.includes(String.fromCharCode(escaped))) {
          this.fail('bad escape');
        }
        this.pos += 2;
        continue;
      }
      this.pos += 1;
    }
  }

  #decode(start: number, end: number): string {
    return JSON.parse(decoder.decode(this.bytes.subarray(start, end))) as string;
  }

  #literal(word: string): void {
    for (let i = 0; i < word.length; i += 1) {
      if (this.bytes[this.pos + i] !== word.charCodeAt(i)) this.fail(`expected ${word}`);
    }
    this.pos += word.length;
  }

  #number(): void {
    const { bytes } = this;
    const digits = () => {
      const from = this.pos;
      while (isDigit(bytes[this.pos])) this.pos += 1;
      if (this.pos === from) this.fail('expected a digit');
    };
    if (bytes[this.pos] === 0x2d) this.pos += 1;
    if (bytes[this.pos] === 0x30) this.pos += 1;
    else digits();
    if (bytes[this.pos] === 0x2e) {
      this.pos += 1;
      digits();
    }
    if (bytes[this.pos] === 0x65 || bytes[this.pos] === 0x45) {
      this.pos += 1;
      if (bytes[this.pos] === 0x2b || bytes[this.pos] === 0x2d) this.pos += 1;
      digits();
    }
  }
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

function isHex(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66))
  );
}
