/**
 * Every single-field mutation of a receipt with its proof, for the receipt verifier's suite
 * (test/integration/verify-receipt-mutations.test.ts): each member at every depth of the
 * receipt, its proof, entry, tombstone, anchor, head, timestamp and cosignatures is changed
 * to nearby values (so edits get past the types and reach the hashes and signatures),
 * swapped to every other JSON type and deleted; every object gains an unknown member.
 * Enumerated, not sampled, so each run covers every field; the fast-check part of the suite
 * combines them.
 */
import type { Json } from './real-receipts.js';

export type Path = (string | number)[];

export interface DocMutation {
  what: string;
  path: Path;
  kind: 'change' | 'delete' | 'add';
  apply: (doc: Json) => Json;
}

/** The report's spelling of a path: `proof.anchor.witnesses[0].key_holder`. */
export function pathName(path: Path): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

function getAt(value: Json, path: Path): Json {
  return path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k] as Json, value);
}

/** A copy with the member at `path` replaced (`undefined`: removed). */
export function setAt(value: Json, path: Path, next: Json | undefined): Json {
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    if (rest.length === 0 && next === undefined) return value.filter((_, i) => i !== head);
    return value.map((v, i) => (i === head ? setAt(v, rest, next) : v)) as Json;
  }
  const object = { ...(value as Record<string, Json>) };
  if (rest.length === 0) {
    if (next === undefined) delete object[head as string];
    else object[head as string] = next;
    return object;
  }
  object[head as string] = setAt(object[head as string] as Json, rest, next);
  return object;
}

function paths(value: Json, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => {
    const child = (value as Record<string | number, Json>)[k] as Json;
    return [[...at, k], ...paths(child, [...at, k])];
  });
}

const objects = (value: Json): Path[] =>
  [[] as Path, ...paths(value)].filter((p) => {
    const v = getAt(value, p);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  });

/** Values close to the old one: a flipped digit keeps hex and base64 well formed, so hashes and signatures see it. */
function nearby(old: Json): Json[] {
  if (typeof old === 'number') return [old + 1, old - 1, old * 10, -old, old / 2, 2 ** 53];
  if (typeof old === 'boolean') return [!old];
  if (typeof old === 'string') {
    if (old.length === 0) return ['x', ' '];
    const flip = (i: number) => {
      const c = old[i]!;
      const swapped = /[0-9a-f]/.test(c) ? (c === '0' ? '1' : '0') : c === 'A' ? 'B' : 'A';
      return old.slice(0, i) + swapped + old.slice(i + 1);
    };
    return [
      flip(0),
      flip(old.length - 1),
      flip(Math.floor(old.length / 2)),
      old + 'x',
      old.slice(1),
      '',
      'x',
    ];
  }
  return [];
}

const SAMPLES: Json[] = [null, true, 0, 1.5, '', 'x', [], {}];
const typeOf = (v: Json): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Every mutation of `doc`, each naming what it does. */
export function receiptMutations(doc: Json): DocMutation[] {
  const out: DocMutation[] = [];
  for (const path of paths(doc)) {
    const name = pathName(path);
    const old = getAt(doc, path);
    for (const next of nearby(old)) {
      out.push({
        what: `${name} = ${JSON.stringify(next).slice(0, 40)}`,
        path,
        kind: 'change',
        apply: (d) => setAt(d, path, next),
      });
    }
    for (const next of SAMPLES.filter((s) => typeOf(s) !== typeOf(old))) {
      out.push({
        what: `${name} swapped to ${typeOf(next)} ${JSON.stringify(next)}`,
        path,
        kind: 'change',
        apply: (d) => setAt(d, path, next),
      });
    }
    out.push({ what: `${name} deleted`, path, kind: 'delete', apply: (d) => setAt(d, path, undefined) });
  }
  for (const path of objects(doc)) {
    for (const extra of ['x', 0, null, { nested: true }] as Json[]) {
      const at = [...path, 'x_unknown'];
      out.push({
        what: `${pathName(at) || 'x_unknown'} added = ${JSON.stringify(extra)}`,
        path: at,
        kind: 'add',
        apply: (d) => setAt(d, at, extra),
      });
    }
  }
  return out;
}
