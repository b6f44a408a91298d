import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SvcError } from '../../core/errors.js';
import { WITNESS_ID_PATTERN } from '../../evidence/witness-rules.js';
import { parseTrustedKey } from '../../verifier/trusted-keys.js';
import { attestUrl } from './attest-url.js';

/**
 * A witness as the daemon's own configuration pins it: where to ask, the id it must answer
 * under and the Ed25519 key its cosignatures must verify under. Nothing in a witness's
 * answer is trusted beyond what these allow, so whoever sits on the path cannot get a
 * cosignature of their own stored under the witness's id.
 */
export interface WitnessPin {
  url: string;
  id: string;
  /** raw 32-byte Ed25519 public key */
  key: Uint8Array;
  /** PEM: the only trust root for this witness's TLS certificate (`--witness-ca`) */
  ca?: string;
}

const FORM =
  'expected URL=ID=KEY: the witness URL, then its id and public key as `svc witness key` prints them';

function usage(flag: string, reason: string): SvcError {
  return new SvcError('usage', `--${flag} ${reason}`, { field: flag });
}

/** `--witness URL=ID=KEY`: the URL ends at the first `=` (a base URL has no query), the id at the next. */
function parsePin(arg: string): WitnessPin {
  const first = arg.indexOf('=');
  const second = first < 0 ? -1 : arg.indexOf('=', first + 1);
  if (first <= 0 || second < 0 || second === first + 1 || second === arg.length - 1) {
    throw usage('witness', `${JSON.stringify(arg)}: ${FORM}`);
  }
  const url = attestUrl('witness', arg.slice(0, first));
  const parsed = new URL(url);
  if (parsed.search !== '' || parsed.hash !== '') {
    throw usage('witness', `${JSON.stringify(arg)}: expected a base URL without a query or fragment`);
  }
  const id = arg.slice(first + 1, second);
  if (!WITNESS_ID_PATTERN.test(id)) {
    throw usage(
      'witness',
      `${JSON.stringify(id)}: expected a witness id of 1 to 128 letters, digits, ".", "_", ":" or "-"`,
    );
  }
  return { url, id, key: parseTrustedKey(arg.slice(second + 1), 'witness') };
}

/** `--witness-ca ID=FILE`: a PEM certificate (or CA) that alone vouches for that witness's TLS. */
function readCa(arg: string): [string, string] {
  const at = arg.indexOf('=');
  if (at <= 0 || at === arg.length - 1) {
    throw usage(
      'witness-ca',
      `${JSON.stringify(arg)}: expected ID=FILE (a witness id given with --witness, and a PEM file)`,
    );
  }
  const file = arg.slice(at + 1);
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
    new X509Certificate(pem);
  } catch (err) {
    throw usage('witness-ca', `${file}: expected a readable PEM certificate (${(err as Error).message})`);
  }
  return [arg.slice(0, at), pem];
}

/**
 * The daemon's witnesses from its flags, checked before anything opens: each pinned by id
 * and key, each id and each key once (a verifier counts each once), a CA only for an https
 * witness named with --witness.
 */
export function parseWitnessPins(witnesses: readonly string[], cas: readonly string[] = []): WitnessPin[] {
  const pins = witnesses.map(parsePin);
  const ids = new Set<string>();
  const keys = new Set<string>();
  for (const pin of pins) {
    const key = Buffer.from(pin.key).toString('hex');
    if (ids.has(pin.id)) throw usage('witness', `${pin.id}: each witness id is given once`);
    if (keys.has(key)) throw usage('witness', `${pin.id}: its key is already pinned for another witness`);
    ids.add(pin.id);
    keys.add(key);
  }
  for (const arg of cas) {
    const [id, pem] = readCa(arg);
    const pin = pins.find((p) => p.id === id);
    if (pin === undefined)
      throw usage('witness-ca', `${id}: expected the id of a witness given with --witness`);
    if (!pin.url.startsWith('https:'))
      throw usage('witness-ca', `${id}: the witness URL ${pin.url} is not https`);
    if (pin.ca !== undefined) throw usage('witness-ca', `${id}: one CA file per witness`);
    pin.ca = pem;
  }
  return pins;
}
