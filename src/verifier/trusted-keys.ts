import { createPublicKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { SvcError } from '../core/errors.js';
import { ed25519PublicKeyProblem } from '../evidence/ed25519-public-key.js';
import { decodeBase64, decodeHex } from '../evidence/encoding.js';
import { rawPublicKey } from '../evidence/keys.js';
import { MAX_PEM_FILE, readBoundedText } from '../io/bounded-file.js';

/** Why the key inside an export is never enough; printed when no key was given. */
export const NO_KEY_MESSAGE =
  'no trusted public key given: pass --public-key with the tenant key you obtained out of band ' +
  '(the operator runs `svc key show --tenant T --all`, which lists retired keys too; pass each key ' +
  'the export names). The public key embedded in the export cannot ' +
  'establish trust: whoever wrote the file chose it, so a forger would embed their own key and ' +
  'every signature would verify under it.';

/** `ID=KEY` pairs as flags give them: split at the first `=` (base64 keys end in `=`). */
export function splitPair(flag: string, arg: string): [string, string] {
  const at = arg.indexOf('=');
  if (at <= 0 || at === arg.length - 1) {
    throw new SvcError('usage', `--${flag} ${JSON.stringify(arg)}: expected ID=KEY`, { field: flag });
  }
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/**
 * A trusted key as given on the command line: base64 or hex of the 32 raw bytes, either
 * optionally prefixed `ed25519:`, or the path of a PEM (SPKI) public key file.
 */
export function parseTrustedKey(arg: string, flag = 'public-key'): Uint8Array {
  const text = arg.trim();
  const body = text.startsWith('ed25519:') ? text.slice('ed25519:'.length) : text;
  const raw = rawFromText(body) ?? (body === text ? rawFromFile(text, flag) : undefined);
  if (raw === undefined) {
    throw new SvcError(
      'usage',
      `--${flag} ${JSON.stringify(arg)}: expected base64 or hex of a 32-byte Ed25519 key (optionally prefixed ed25519:) or a PEM public key file`,
      { field: flag },
    );
  }
  const problem = ed25519PublicKeyProblem(raw);
  if (problem !== undefined) {
    throw new SvcError('usage', `--${flag} ${JSON.stringify(arg)} is refused: ${problem}`, { field: flag });
  }
  return raw;
}

function rawFromText(text: string): Uint8Array | undefined {
  // 64 hex digits first: they are also valid base64, of 48 bytes.
  const hex = /^[0-9a-fA-F]{64}$/.test(text) ? decodeHex(text.toLowerCase()) : undefined;
  if (hex !== undefined) return hex;
  const b64 = decodeBase64(text);
  return b64?.length === 32 ? b64 : undefined;
}

function rawFromFile(path: string, flag: string): Uint8Array | undefined {
  if (!existsSync(path)) return undefined;
  const content = readBoundedText(flag, path, MAX_PEM_FILE, { code: 'usage' });
  if (!content.includes('-----BEGIN PUBLIC KEY-----')) return rawFromText(content.trim());
  try {
    return rawPublicKey(createPublicKey({ key: content, format: 'pem' }));
  } catch (err) {
    throw new SvcError(
      'usage',
      `--${flag} ${path}: not an Ed25519 PEM public key (${(err as Error).message})`,
    );
  }
}
