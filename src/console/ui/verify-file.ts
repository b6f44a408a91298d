import { ed25519PublicKeyProblem } from '../../evidence/ed25519-public-key.js';
import { decodeBase64, decodeHex } from '../../evidence/encoding.js';
import { nobleCrypto } from '../../evidence/noble-crypto.js';
import { verifyExport, type VerificationReport } from '../../evidence/verify/index.js';

/**
 * A pasted trusted key: base64 or hex of the 32 raw Ed25519 bytes, optionally prefixed
 * `ed25519:` (what `svc key show` prints). The key inside the export is never used.
 */
export function parsePastedKey(text: string): Uint8Array {
  const t = text.trim().replace(/^ed25519:/, '');
  const raw = /^[0-9a-fA-F]{64}$/.test(t) ? decodeHex(t.toLowerCase()) : decodeBase64(t);
  if (raw === undefined || raw.length !== 32) {
    throw new Error(
      'public key: expected base64 or hex of the 32-byte Ed25519 key (svc key show --tenant T)',
    );
  }
  const problem = ed25519PublicKeyProblem(raw);
  if (problem !== undefined) throw new Error(`public key refused: ${problem}`);
  return raw;
}

/** A file's bytes in chunks, reporting progress and yielding to the page between chunks. */
async function* chunksOf(file: Blob, onProgress: (done: number) => void): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  let done = 0;
  let last = performance.now();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    done += r.value.byteLength;
    yield r.value;
    if (performance.now() - last > 50) {
      onProgress(done);
      last = performance.now();
      // Let the page paint the progress bar: the verifier's own awaits are microtasks.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
  onProgress(done);
}

/**
 * Verify an export in the page with the project's own verifier and the browser crypto
 * provider (@noble/ed25519 strict + @noble/hashes). The file never leaves the browser.
 */
export function verifyInBrowser(
  file: Blob,
  publicKeys: Uint8Array[],
  requireAnchors: boolean,
  onProgress: (done: number) => void = () => {},
): Promise<VerificationReport> {
  return verifyExport(chunksOf(file, onProgress), { publicKeys, requireAnchors }, nobleCrypto);
}
