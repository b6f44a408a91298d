/**
 * Random mutations of an export's signed content, for the fast-check suite in
 * test/integration/verify-mutations.test.ts. Everything in an `svc.export/v1` file is bound
 * by a hash, a signature or a cross-line rule except the header's `exported_at` (the header
 * is not signed, and nothing else restates that time: evidence-format.md §6), so every
 * mutation leaves that one value alone. Each mutation returns the whole new file; whether
 * it changed anything is decided by comparing bytes, never by the mutation's own say-so.
 */
import fc from 'fast-check';
import { cjson } from '../../src/evidence/cjson.js';

export interface Mutation {
  what: string;
  apply: (lines: readonly string[]) => Uint8Array;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const utf8 = new TextEncoder();
const fileOf = (lines: readonly string[]): Uint8Array => utf8.encode(lines.map((l) => l + '\n').join(''));

/** Where a header's unsigned `exported_at` member sits in its line, in characters or in bytes. */
function unsignedSpan(line: string, unit: 'chars' | 'bytes'): [number, number] | undefined {
  const match = /"exported_at":"[^"\\]*"/.exec(line);
  if (!match || !line.includes('"type":"header"')) return undefined;
  if (unit === 'chars') return [match.index, match.index + match[0].length];
  const start = utf8.encode(line.slice(0, match.index)).length;
  return [start, start + utf8.encode(match[0]).length];
}

/** Every path to a scalar in a parsed line, except the unsigned one. */
function leafPaths(value: Json, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [at];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => {
    if (at.length === 0 && k === 'exported_at') return [];
    return leafPaths((value as Record<string | number, Json>)[k] as Json, [...at, k]);
  });
}

function setAt(value: Json, path: Path, next: Json): Json {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, next) : v));
  const object = value as Record<string, Json>;
  return { ...object, [head as string]: setAt(object[head as string] as Json, rest, next) };
}

function getAt(value: Json, path: Path): Json {
  return path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k] as Json, value);
}

/** A replacement close to the old value, so edits get past the schema and reach the hashes. */
const nearby = (old: Json, pick: number, text: string): Json => {
  if (typeof old === 'number') return [old + 1, old - 1, old * 10, -old, old / 2, 2 ** 53][pick % 6]!;
  if (typeof old === 'boolean') return !old;
  if (typeof old === 'string') {
    if (old.length === 0) return text || 'x';
    const i = pick % old.length;
    const c = old[i]!;
    const swapped = /[0-9a-f]/.test(c) ? (c === '0' ? '1' : '0') : c === 'A' ? 'B' : 'A';
    return [old.slice(0, i) + swapped + old.slice(i + 1), old + text, old.slice(1), text][pick % 4]!;
  }
  return text;
};

const lineIndex = (lines: readonly string[], i: number): number => i % lines.length;

/** One random byte XORed with a non-zero mask, outside the unsigned span. */
const byteFlip = fc
  .tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }))
  .map(([li, bi, mask]): Mutation => ({
    what: `byte flip (line ${li}, byte ${bi}, mask ${mask})`,
    apply: (lines) => {
      const i = lineIndex(lines, li);
      const bytes = utf8.encode(lines[i]!);
      const span = unsignedSpan(lines[i]!, 'bytes');
      const allowed = [...bytes.keys()].filter((b) => !span || b < span[0] || b >= span[1]);
      const at = allowed[bi % allowed.length]!;
      const mutated = Uint8Array.from(bytes);
      mutated[at]! ^= mask;
      const before = fileOf(lines.slice(0, i));
      const after = fileOf(lines.slice(i + 1));
      return Uint8Array.from([...before, ...mutated, 0x0a, ...after]);
    },
  }));

/** A scalar field of a line set to a nearby or arbitrary value; the line stays canonical. */
const fieldEdit = fc
  .tuple(
    fc.nat(),
    fc.nat(),
    fc.nat(),
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.jsonValue({ maxDepth: 1 }),
  )
  .map(([li, pi, pick, text, arbitrary, any]): Mutation => ({
    what: `field edit (line ${li}, path ${pi}, ${arbitrary ? 'arbitrary value' : `nearby ${pick}`})`,
    apply: (lines) => {
      const i = lineIndex(lines, li);
      let value: Json;
      try {
        value = JSON.parse(lines[i]!) as Json;
      } catch {
        return fileOf(lines); // an earlier mutation broke the JSON; nothing to edit
      }
      const paths = leafPaths(value);
      const path = paths[pi % paths.length]!;
      const next = arbitrary ? (any as Json) : nearby(getAt(value, path), pick, text);
      let line: string;
      try {
        line = cjson(setAt(value, path, next));
      } catch {
        line = JSON.stringify(setAt(value, path, next)); // a lone surrogate: no canonical form exists
      }
      return fileOf(lines.map((l, j) => (j === i ? line : l)));
    },
  }));

const isAnchor = (line: string) => line.includes('"type":"anchor"');

/**
 * One line removed, never a whole anchor line: the format does not bind which anchors a file
 * carries (nothing signed lists them), so a file without one intermediate anchor is a valid
 * export with fewer attestations, reported as such (see the suite's own test of it).
 */
const lineDrop = fc.nat().map((li): Mutation => ({
  what: `line ${li} dropped (or the next line that is not an anchor)`,
  apply: (lines) => {
    let i = lineIndex(lines, li);
    for (let n = 0; n < lines.length && isAnchor(lines[i]!); n++) i = (i + 1) % lines.length;
    return fileOf(lines.filter((_, j) => j !== i));
  },
}));

const lineDup = fc.tuple(fc.nat(), fc.nat()).map(([li, to]): Mutation => ({
  what: `line ${li} duplicated at ${to}`,
  apply: (lines) => {
    const copy = [...lines];
    copy.splice(to % (lines.length + 1), 0, lines[lineIndex(lines, li)]!);
    return fileOf(copy);
  },
}));

const lineMove = fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Mutation => ({
  what: `line ${from} moved to ${to}`,
  apply: (lines) => {
    const copy = [...lines];
    const [moved] = copy.splice(lineIndex(lines, from), 1);
    copy.splice(to % lines.length, 0, moved!);
    return fileOf(copy);
  },
}));

/** A number token rewritten in another spelling of the same value (1.5 -> 1.50, 15e-1, ...). */
const numberForm = fc.tuple(fc.nat(), fc.nat(), fc.nat()).map(([li, ni, form]): Mutation => ({
  what: `number re-encoded (line ${li}, number ${ni}, form ${form})`,
  apply: (lines) => {
    const i = lineIndex(lines, li);
    const line = lines[i]!;
    // a number is a value: it follows a colon or a comma/bracket in an array, outside strings
    const tokens = [...line.matchAll(/(?<=[:,[])-?\d+(\.\d+)?([eE][+-]?\d+)?(?=[,}\]])/g)];
    if (tokens.length === 0) return fileOf(lines);
    const token = tokens[ni % tokens.length]!;
    const n = Number(token[0]);
    const spellings = [
      `${token[0]}${token[0].includes('.') ? '0' : '.0'}`,
      n.toExponential(),
      `${token[0]}e0`,
      `${token[0]}E+0`,
      n === 0 ? '-0' : `0${token[0]}`,
      `${n * 10}e-1`,
    ];
    const text = spellings[form % spellings.length]!;
    const at = token.index!;
    return fileOf(lines.map((l, j) => (j === i ? l.slice(0, at) + text + l.slice(at + token[0].length) : l)));
  },
}));

/** One character of a string (key or value) written as a \u escape; same value, other bytes. */
const unicodeEscape = fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([li, ci, upper]): Mutation => ({
  what: `character escaped (line ${li}, char ${ci})`,
  apply: (lines) => {
    const i = lineIndex(lines, li);
    const line = lines[i]!;
    const span = unsignedSpan(line, 'chars');
    // characters inside strings that are not quotes, backslashes or part of the unsigned span
    const candidates: number[] = [];
    let inString = false;
    for (let c = 0; c < line.length; c++) {
      const ch = line[c]!;
      if (ch === '"') inString = !inString;
      else if (inString && ch === '\\')
        c++; // an escape: leave it and what it escapes alone
      else if (inString && !(span && c >= span[0] && c < span[1])) candidates.push(c);
    }
    if (candidates.length === 0) return fileOf(lines);
    const at = candidates[ci % candidates.length]!;
    let hex = line.charCodeAt(at).toString(16).padStart(4, '0');
    if (upper) hex = hex.toUpperCase();
    return fileOf(lines.map((l, j) => (j === i ? `${l.slice(0, at)}\\u${hex}${l.slice(at + 1)}` : l)));
  },
}));

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  byteFlip,
  fieldEdit,
  lineDrop,
  lineDup,
  lineMove,
  numberForm,
  unicodeEscape,
);

/** One to three mutations applied in turn. */
export const mutations: fc.Arbitrary<Mutation[]> = fc.array(mutation, { minLength: 1, maxLength: 3 });

const utf8Fatal = new TextDecoder('utf-8', { fatal: true });

/** Apply mutations in turn; a mutation that leaves text that is not UTF-8 ends the chain. */
export function applyAll(lines: readonly string[], list: readonly Mutation[]): Uint8Array {
  let current = lines;
  let bytes = fileOf(lines);
  for (const m of list) {
    bytes = m.apply(current);
    let text: string;
    try {
      text = utf8Fatal.decode(bytes);
    } catch {
      return bytes;
    }
    if (!text.endsWith('\n') || text.length === 0) return bytes;
    current = text.slice(0, -1).split('\n');
  }
  return bytes;
}
