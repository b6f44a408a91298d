import { SvcError } from '../core/errors.js';
import { readBoundedFile } from '../io/bounded-file.js';
import type { SecretRepo } from '../store/integration-ports.js';
import { parseCredentialRef } from './credential-ref.js';
import type { SecretBox } from './secret-box.js';

export type Resolved = { ok: true; value: string } | { ok: false; problem: string };

const MAX_FILE_BYTES = 64 * 1024;

/**
 * Turns a credential reference into the credential, at the moment of use, so a secret set
 * or a file replaced while the daemon runs applies to the next call. A failure says which
 * reference did not resolve and why; it never carries any part of a value.
 */
export class CredentialResolver {
  private box: SecretBox | undefined;

  constructor(
    private readonly secrets: SecretRepo,
    private readonly openBox: () => SecretBox | Promise<SecretBox>,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async resolve(tenantId: string, refText: string): Promise<Resolved> {
    let ref;
    try {
      ref = parseCredentialRef('credential_ref', refText);
    } catch {
      return { ok: false, problem: `${refText} is not a credential reference` };
    }
    if (ref.kind === 'env') {
      const v = this.env[ref.name];
      return v === undefined || v === ''
        ? { ok: false, problem: `the environment variable ${ref.name} is not set in the daemon` }
        : { ok: true, value: v };
    }
    if (ref.kind === 'file') {
      let bytes: Buffer;
      try {
        // Bounded and regular files only: a reference to /dev/zero or a FIFO must not stall
        // or fill the daemon. The reason names the path and the limit, never the content.
        bytes = readBoundedFile('credential_ref', ref.path, MAX_FILE_BYTES);
      } catch (err) {
        return {
          ok: false,
          problem: err instanceof SvcError ? err.reason : `${ref.path} cannot be read`,
        };
      }
      // Files written by editors and `echo` end with a newline that is not part of the credential.
      const v = bytes.toString('utf8').replace(/\r?\n$/, '');
      return v === '' ? { ok: false, problem: `${ref.path} is empty` } : { ok: true, value: v };
    }
    const sealed = await this.secrets.get(tenantId, ref.name);
    if (!sealed) return { ok: false, problem: `there is no secret ${ref.name} in tenant ${tenantId}` };
    try {
      this.box ??= await this.openBox();
      return { ok: true, value: this.box.open(tenantId, ref.name, sealed) };
    } catch (err) {
      return {
        ok: false,
        problem: err instanceof SvcError ? err.reason : `secret ${ref.name} cannot be opened`,
      };
    }
  }
}
