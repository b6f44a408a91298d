import { SvcError } from '../core/errors.js';
import { MAX_PEM_FILE, readBoundedText } from '../io/bounded-file.js';
import { parseTrustedKey, splitPair } from './trusted-keys.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g;

/** `--tsa-cert FILE`: every PEM certificate in the file, as DER, a trust root for timestamps. */
export function readTsaRoots(files: readonly string[]): Uint8Array[] {
  const roots: Uint8Array[] = [];
  for (const file of files) {
    const text = readBoundedText('tsa-cert', file, MAX_PEM_FILE, { code: 'usage' });
    const found = [...text.matchAll(PEM_CERT)].map(
      (m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')),
    );
    if (found.length === 0) {
      throw new SvcError('usage', `--tsa-cert ${file}: expected a PEM file with at least one CERTIFICATE`, {
        field: 'tsa-cert',
      });
    }
    roots.push(...found);
  }
  return roots;
}

/** `--witness-key ID=KEY`: a witness id and the key pinned for it (base64, hex or a PEM file). */
export function parseWitnessKeys(args: readonly string[]): { id: string; key: Uint8Array }[] {
  return args.map((arg) => {
    const [id, key] = splitPair('witness-key', arg);
    return { id, key: parseTrustedKey(key, 'witness-key') };
  });
}
