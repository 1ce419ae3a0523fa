/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): object members sorted by the UTF-16 code units
 * of their names, no whitespace, numbers as ECMAScript's Number-to-String, strings with only
 * the escapes JSON requires. ECMAScript's own `JSON.stringify` is JCS for a number or a string
 * (RFC 8785 §3.2.2.3 and §3.2.2.2 are written in its terms); what JCS adds is refused input:
 * non-finite numbers and text that is not Unicode (a lone surrogate).
 */
import { hasLoneSurrogate } from './bytes.js';
import { VerifyError } from './verify-error.js';

/** How deep values may nest: deeper input is refused rather than allowed to exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * The canonical JSON text of `value`: null, booleans, finite numbers, strings, arrays and plain
 * objects. An object member whose value is `undefined` is left out, as `JSON.stringify` does
 * (what a store writes has no such member either); anything else that is not JSON (a function,
 * a bigint, a `Date`, `undefined` in an array, NaN, a lone surrogate) throws `LEAF_INVALID`
 * naming where it is, e.g. `$.body.score`.
 */
export function canonicalJson(value: unknown, path = '$'): string {
  // The usual value (plain objects whose names are not array indexes, well-formed strings,
  // finite numbers) is copied with its members in canonical order and written by the engine's
  // own JSON.stringify; anything else takes the member-by-member writer, which names the path.
  const sorted = sortedCopy(value, 0);
  return sorted === UNUSUAL ? write(value, path, 0) : JSON.stringify(sorted);
}

/** What {@link sortedCopy} answers for a value the member-by-member writer must handle. */
const UNUSUAL = Symbol('unusual');

/**
 * An array index as a member name (`"0"`, `"42"`): JavaScript enumerates those first, in numeric
 * order, whatever the insertion order, so an object holding one cannot carry the sorted order.
 */
const INDEX_NAME = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * `value` with every object's members inserted in RFC 8785 order (so `JSON.stringify` writes its
 * canonical text), or {@link UNUSUAL} when it holds anything that is not plain JSON.
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) return UNUSUAL;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : UNUSUAL;
    case 'string':
      return hasLoneSurrogate(value) ? UNUSUAL : value;
    case 'object':
      break;
    default:
      return UNUSUAL;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const items: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = i in value ? sortedCopy(value[i], depth + 1) : UNUSUAL;
      if (item === UNUSUAL || item === undefined) return UNUSUAL;
      items[i] = item;
    }
    return items;
  }
  if (!isPlainObject(value)) return UNUSUAL;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(record).sort()) {
    const member = record[name];
    if (member === undefined) continue;
    if (INDEX_NAME.test(name) || name === '__proto__' || hasLoneSurrogate(name)) return UNUSUAL;
    const item = sortedCopy(member, depth + 1);
    if (item === UNUSUAL) return UNUSUAL;
    copy[name] = item;
  }
  return copy;
}

/**
 * Plain in any realm: made by a literal or JSON.parse (its prototype is some realm's
 * Object.prototype, whose own prototype is null) or by Object.create(null).
 */
function isPlainObject(object: object): boolean {
  const prototype = Object.getPrototypeOf(object) as object | null;
  return (
    Object.prototype.toString.call(object) === '[object Object]' &&
    (prototype === null || Object.getPrototypeOf(prototype) === null)
  );
}

function write(value: unknown, path: string, depth: number): string {
  if (depth > MAX_JSON_DEPTH) refuse(path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) refuse(path, `is ${value}, which JSON cannot hold`);
      return JSON.stringify(value);
    case 'string':
      if (hasLoneSurrogate(value)) refuse(path, 'holds a lone surrogate (not Unicode text)');
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return writeArray(value, path, depth);
      return writeObject(value, path, depth);
    default:
      return refuse(path, `is a ${typeof value}, which JSON cannot hold`);
  }
}

function writeArray(items: readonly unknown[], path: string, depth: number): string {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i++) {
    if (!(i in items) || items[i] === undefined) refuse(`${path}[${i}]`, 'is missing');
    parts.push(write(items[i], `${path}[${i}]`, depth + 1));
  }
  return `[${parts.join(',')}]`;
}

function writeObject(object: object, path: string, depth: number): string {
  if (!isPlainObject(object)) refuse(path, 'is not a plain object');
  const record = object as Record<string, unknown>;
  // The default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
  const names = Object.keys(record)
    .filter((name) => record[name] !== undefined)
    .sort();
  const members = names.map((name) => {
    const at = `${path}.${name}`;
    if (hasLoneSurrogate(name)) refuse(at, 'is a member name with a lone surrogate');
    return `${JSON.stringify(name)}:${write(record[name], at, depth + 1)}`;
  });
  return `{${members.join(',')}}`;
}

function refuse(path: string, why: string): never {
  throw new VerifyError('LEAF_INVALID', `The JSON value at ${path} ${why}.`, { path });
}
