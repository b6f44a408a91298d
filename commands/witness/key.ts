import { Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { encodeBase64 } from '../../src/evidence/encoding.js';
import { keyIdFor, publicKeyPem, rawPublicKey } from '../../src/evidence/keys.js';
import { witnessKey } from '../../src/witness/key-file.js';

export default class WitnessKey extends SvcCommand {
  static override summary =
    "Print a witness's public key for verifiers to pin (making the key file if absent).";
  static override examples = [
    '<%= config.bin %> witness key --key-file witness.pem',
    '<%= config.bin %> witness key --key-file witness.pem --json',
  ];
  static override flags = {
    'key-file': Flags.string({
      summary: 'The witness private key (Ed25519 PKCS#8 PEM); made with mode 0600 when absent.',
      required: true,
    }),
    id: Flags.string({ summary: 'The witness id it will serve under (default: its key id).' }),
  };

  async run(): Promise<{ witness_id: string; key_id: string; public_key: string; created: boolean }> {
    const { flags } = await this.parse(WitnessKey);
    const { key, created } = witnessKey(flags['key-file'], { create: true });
    const raw = rawPublicKey(key);
    const keyId = keyIdFor(raw);
    const result = { witness_id: flags.id ?? keyId, key_id: keyId, public_key: encodeBase64(raw), created };
    if (created) this.note(`made a new witness key at ${flags['key-file']} (mode 0600)`);
    this.log(`${result.witness_id}=${result.public_key}`);
    this.note(`pin it with: svc verify FILE --witness-key ${result.witness_id}=${result.public_key}`);
    this.note(`and with: svc daemon start --witness URL=${result.witness_id}=${result.public_key}`);
    this.note(publicKeyPem(raw).trimEnd());
    return result;
  }
}
