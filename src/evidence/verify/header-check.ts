import { bytesEqual } from '../bytes.js';
import { chainGenesis } from '../chain.js';
import { decodeBase64, isWellFormedUnicode } from '../encoding.js';
import { ed25519PublicKeyProblem } from '../ed25519-public-key.js';
import { keyIdOf } from '../key-id.js';
import { logIdFor } from '../log-id.js';
import { asHash, asObject, asSafeInteger, asString, type JsonObject } from './field-readers.js';
import { checkTreeHead } from './head-check.js';
import { noteUntrustedKeyId, type VerifierState } from './state.js';

/**
 * The header (§2, §6): it is not signed, so nothing in it is believed. Its tenant id fixes
 * the log id every signed head must carry; its key must be one the caller trusts; its
 * head is checked against the whole file at the end (checkHeaderHead).
 */
export function checkHeader(state: VerifierState, at: number, header: JsonObject): void {
  const { sink } = state;
  state.previousKind = 'header';
  if (at !== 1) {
    sink.add('header_misplaced', at, 'a header line after line 1; line 1 is the only header');
    return;
  }
  const tenantId = asString(header.tenant_id);
  // A lone surrogate has no UTF-8 form to hash; it was reported as lone_surrogate.
  const logId =
    tenantId && isWellFormedUnicode(tenantId) ? logIdFor(tenantId, state.crypto.sha256) : undefined;
  const head = asObject(header.head);
  state.header = {
    line: at,
    tenantId,
    logId,
    entryCount: asSafeInteger(header.entry_count),
    headTreeSize: asSafeInteger(head?.tree_size),
    headRoot: asHash(head?.root_hash),
    preAnchor: header.pre_anchor === true,
  };
  if (logId !== undefined) {
    state.chain = chainGenesis(logId, state.crypto.sha256);
    const written = asString(header.log_id);
    if (written !== undefined && written !== logId) {
      sink.add(
        'log_id_mismatch',
        at,
        `header log_id ${written} is not the one derived from tenant_id (${logId})`,
      );
    }
  }
  const algorithm = asString(header.signature_algorithm);
  if (algorithm !== undefined && algorithm !== 'ed25519') {
    sink.add('algorithm_unsupported', at, `signature_algorithm ${JSON.stringify(algorithm)} is not ed25519`);
  }
  checkHeaderKey(state, at, asString(header.public_key), asString(header.signing_key_id));
  if (head) checkTreeHead(state, at, head, 'header head', asString(header.signing_key_id));
}

function checkHeaderKey(
  state: VerifierState,
  at: number,
  encoded: string | undefined,
  signingKeyId: string | undefined,
): void {
  const { sink } = state;
  if (encoded === undefined) return;
  const raw = decodeBase64(encoded);
  const problem = raw === undefined ? 'it is not strict base64' : ed25519PublicKeyProblem(raw);
  if (raw === undefined || problem !== undefined) {
    sink.add('public_key_malformed', at, `header public_key: ${problem}`);
    return;
  }
  const keyId = keyIdOf(raw, state.crypto.sha256);
  if (!state.trustedKeys.some((key) => bytesEqual(key.raw, raw))) {
    noteUntrustedKeyId(state, keyId);
    sink.add(
      'untrusted_key',
      at,
      `header public_key (${keyId}) is not a trusted key; the embedded key is never used instead: obtain ${keyId} out of band and pass it with --public-key`,
    );
  }
  if (signingKeyId !== undefined && signingKeyId !== keyId) {
    sink.add(
      'key_id_mismatch',
      at,
      `signing_key_id ${signingKeyId} is not the id of the header public_key (${keyId})`,
    );
  }
}

/** End of file: the header's claims against what the file holds (§6 "Header"). */
export function checkHeaderHead(state: VerifierState): void {
  const { header, sink } = state;
  if (header === undefined) return;
  const entries = state.counts.entries;
  if (header.entryCount !== undefined && header.entryCount !== entries) {
    sink.add(
      'entry_count_mismatch',
      header.line,
      `header entry_count is ${header.entryCount}, the file has ${entries} entries`,
    );
  }
  if (header.headTreeSize === undefined) return;
  if (header.headTreeSize !== entries) {
    sink.add(
      'header_tree_size_mismatch',
      header.line,
      `header head tree_size is ${header.headTreeSize}, the file has ${entries} entries`,
    );
  } else if (header.headRoot !== undefined && !bytesEqual(header.headRoot, state.frontier.root())) {
    sink.add(
      'header_root_mismatch',
      header.line,
      `header head root_hash is not the root over all ${entries} leaves`,
    );
  }
}
