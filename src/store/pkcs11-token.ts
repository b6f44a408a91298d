import type * as Pkcs11Lib from 'pkcs11js';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { SvcError } from '../core/errors.js';
import type { Ed25519Sign } from '../evidence/crypto-provider.js';
import { keyIdFor } from '../evidence/keys.js';
import { checkPrivateFileMode, type Pkcs11Choice } from './data-dir.js';

type Pkcs11Module = typeof Pkcs11Lib;
type Pkcs11 = InstanceType<Pkcs11Module['PKCS11']>;
type Handle = Buffer;

// PKCS#11 v3.0 values for Ed25519, which pkcs11js does not name.
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;
const CKK_EC_EDWARDS = 0x40;
/** DER of the Ed25519 curve's OID, 1.3.101.112 (RFC 8410): the key pair's CKA_EC_PARAMS. */
const ED25519_PARAMS = Buffer.from('06032b6570', 'hex');

/**
 * Journal signing keys inside a PKCS#11 token (an HSM, or SoftHSM in tests): generated there,
 * sensitive and never extractable, so the private half never exists in svc's memory, its data
 * dir or its database; svc keeps only the public half and asks the token for each signature.
 * A key is found by its CKA_ID, the svc key id (`ed25519-` + 16 hex digits of its public key).
 */
export class Pkcs11Token {
  private constructor(
    private readonly p11: Pkcs11,
    private readonly lib: Pkcs11Module,
    private readonly session: Handle,
    private readonly label: string,
  ) {}

  /** Load the module, find the token by its label and log in with the PIN file's PIN. */
  static open(choice: Required<Pkcs11Choice>): Pkcs11Token {
    const pin = readPin(choice.pinFile);
    const lib = createRequire(import.meta.url)('pkcs11js') as Pkcs11Module;
    const p11 = new lib.PKCS11();
    try {
      p11.load(choice.module);
    } catch (err) {
      throw new SvcError('usage', `--pkcs11-module: ${choice.module} cannot be loaded as a PKCS#11 library`, {
        field: 'pkcs11-module',
        cause: err,
        remedy: "name the vendor's PKCS#11 library file (SoftHSM: /usr/lib/softhsm/libsofthsm2.so)",
      });
    }
    try {
      p11.C_Initialize();
    } catch (err) {
      // One library per process: a second token of the same library is not supported.
      throw new SvcError('unavailable', `--pkcs11-module: ${choice.module} did not initialise`, {
        field: 'pkcs11-module',
        cause: err,
        remedy: 'check the library and its configuration (SoftHSM: SOFTHSM2_CONF and its token directory)',
      });
    }
    try {
      const slot = p11.C_GetSlotList(true).find((s) => p11.C_GetTokenInfo(s).label.trim() === choice.label);
      if (slot === undefined) {
        throw new SvcError(
          'usage',
          `--pkcs11-token-label: no token labelled ${JSON.stringify(choice.label)} is present`,
          {
            field: 'pkcs11-token-label',
            remedy: 'name the label the token was initialised with (softhsm2-util --show-slots lists them)',
          },
        );
      }
      const session = p11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION);
      try {
        p11.C_Login(session, lib.CKU_USER, pin);
      } catch (err) {
        if (codeOf(err) !== lib.CKR_USER_ALREADY_LOGGED_IN) {
          throw new SvcError('unavailable', `--pkcs11-pin-file: the token ${choice.label} refused the PIN`, {
            field: 'pkcs11-pin-file',
            cause: err,
            remedy:
              "put the token's user PIN in the file (mode 0600); a token locks itself after too many wrong PINs",
          });
        }
      }
      return new Pkcs11Token(p11, lib, session, choice.label);
    } catch (err) {
      p11.C_Finalize();
      throw err;
    }
  }

  /**
   * A new Ed25519 key pair in the token, labelled for `tenantId`: its private half sensitive
   * and not extractable. Answers the key id and the base64 public key the store records.
   */
  mint(tenantId: string): { keyId: string; publicKey: string; discard: () => void } {
    const { p11, lib } = this;
    const common = [
      { type: lib.CKA_TOKEN, value: true },
      { type: lib.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
    ];
    const pair = p11.C_GenerateKeyPair(
      this.session,
      { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN },
      [...common, { type: lib.CKA_EC_PARAMS, value: ED25519_PARAMS }, { type: lib.CKA_VERIFY, value: true }],
      [
        ...common,
        { type: lib.CKA_PRIVATE, value: true },
        { type: lib.CKA_SENSITIVE, value: true },
        { type: lib.CKA_EXTRACTABLE, value: false },
        { type: lib.CKA_SIGN, value: true },
      ],
    );
    const discard = () => {
      p11.C_DestroyObject(this.session, pair.privateKey);
      p11.C_DestroyObject(this.session, pair.publicKey);
    };
    try {
      const raw = this.publicPoint(pair.publicKey);
      const keyId = keyIdFor(raw);
      // The id is the hash of the public half, so it is known only once the pair exists.
      const named = [
        { type: lib.CKA_ID, value: Buffer.from(keyId, 'utf8') },
        { type: lib.CKA_LABEL, value: `svc ${tenantId} ${keyId}` },
      ];
      p11.C_SetAttributeValue(this.session, pair.publicKey, named);
      p11.C_SetAttributeValue(this.session, pair.privateKey, named);
      return { keyId, publicKey: Buffer.from(raw).toString('base64'), discard };
    } catch (err) {
      discard();
      throw err;
    }
  }

  /**
   * A signer for key `keyId`, or undefined when the token holds no such key. Its public half
   * must be `publicKey` (base64), the one the store records: a token object under the same id
   * with another key would sign heads no auditor can verify.
   */
  signer(keyId: string, publicKey: string): Ed25519Sign | undefined {
    const { p11, lib } = this;
    const id = Buffer.from(keyId, 'utf8');
    const privateKey = this.find(lib.CKO_PRIVATE_KEY, id);
    if (privateKey === undefined) return undefined;
    const pub = this.find(lib.CKO_PUBLIC_KEY, id);
    if (pub === undefined || Buffer.from(this.publicPoint(pub)).toString('base64') !== publicKey) {
      throw new SvcError(
        'unavailable',
        `the PKCS#11 token ${this.label} holds key ${keyId}, but not the public half the store records`,
        { remedy: 'use the token that made the key; nothing is signed with a key that does not match' },
      );
    }
    return (message) => {
      p11.C_SignInit(this.session, { mechanism: CKM_EDDSA }, privateKey);
      return new Uint8Array(p11.C_Sign(this.session, Buffer.from(message), Buffer.alloc(64)));
    };
  }

  private find(cls: number, id: Buffer): Handle | undefined {
    const { p11, lib } = this;
    p11.C_FindObjectsInit(this.session, [
      { type: lib.CKA_CLASS, value: cls },
      { type: lib.CKA_ID, value: id },
    ]);
    try {
      return p11.C_FindObjects(this.session, 1)[0];
    } finally {
      p11.C_FindObjectsFinal(this.session);
    }
  }

  /** The 32 raw bytes of an Ed25519 public key object (CKA_EC_POINT, bare or as a DER OCTET STRING). */
  private publicPoint(handle: Handle): Uint8Array {
    const [attr] = this.p11.C_GetAttributeValue(this.session, handle, [{ type: this.lib.CKA_EC_POINT }]);
    const point = attr?.value as Buffer | undefined;
    if (point?.length === 34 && point[0] === 0x04 && point[1] === 0x20) return point.subarray(2);
    if (point?.length === 32) return point;
    throw new SvcError(
      'unavailable',
      `the PKCS#11 token ${this.label} answered a public key that is not Ed25519`,
    );
  }
}

/**
 * The process's session with a token, opened on first use and kept: a PKCS#11 library is
 * initialised once per process, and every keyring of the process signs through it.
 */
const opened = new Map<string, Pkcs11Token>();

export function openToken(settings: Required<Pkcs11Choice>): Pkcs11Token {
  const key = JSON.stringify([settings.module, settings.label, settings.pinFile]);
  let token = opened.get(key);
  if (!token) opened.set(key, (token = Pkcs11Token.open(settings)));
  return token;
}

function readPin(path: string): string {
  try {
    checkPrivateFileMode(path);
    const pin = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (pin === '') throw new Error('empty');
    return pin;
  } catch (err) {
    if (err instanceof SvcError)
      throw new SvcError('unavailable', `--pkcs11-pin-file: ${err.reason}`, {
        field: 'pkcs11-pin-file',
        ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
      });
    throw new SvcError('usage', `--pkcs11-pin-file: ${path} cannot be read or is empty`, {
      field: 'pkcs11-pin-file',
      cause: err,
      remedy: "write the token's user PIN to the file, mode 0600",
    });
  }
}

function codeOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}
