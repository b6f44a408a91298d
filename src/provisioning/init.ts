import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { checkSlug } from '../core/ids.js';
import { SvcError } from '../core/errors.js';
import { DataDir, writeSecretFile, type KekChoice, type Pkcs11Choice } from '../store/data-dir.js';
import { kekSetOf } from '../store/kek.js';
import { openToken } from '../store/pkcs11-token.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/ports.js';
import { redactUrl } from '../store/postgres/connection-url.js';
import { createDeploymentCertificate } from '../tls/certificate.js';
import { createTenant } from './tenant.js';

export interface InitResult {
  tenant_id: string;
  admin_id: string;
  admin_token: string;
  admin_token_id: string;
  data_dir: string;
  public_key: string;
  key_id: string;
  ca_cert: string;
  tls_fingerprint256: string;
}

/**
 * Create a data dir from nothing: the store (the data dir's SQLite file, or the PostgreSQL
 * database `opts.store` names), the deployment TLS certificate, the first tenant with its
 * signing key, and its first human administrator with a token. An initialised data dir is
 * never re-initialised, and a PostgreSQL database that already holds tenants belongs to a
 * deployment whose data dir must be copied instead: keys and history are not clobbered.
 */
export async function initDataDir(
  root: string,
  opts: {
    tenantId: string;
    adminId: string;
    now: Date;
    store?: string;
    kek?: KekChoice;
    pkcs11?: Pkcs11Choice;
  },
): Promise<InitResult> {
  const dir = new DataDir(root, opts.store, opts.kek, opts.pkcs11);
  // An unreadable KEK file, or a token that cannot be opened, stops init before anything is written.
  kekSetOf(dir);
  const token = dir.tokenSettings;
  if (token) openToken(token);
  if (dir.exists()) {
    throw new SvcError('already_exists', `${root} is already an svc data dir`, {
      remedy: 'use `svc tenant create` to add a tenant, or choose another --data-dir',
    });
  }
  // Validate every answer before the first file is written: no half-made data dir.
  checkSlug('tenant', opts.tenantId);
  checkSlug('admin', opts.adminId);
  let store: Store | undefined;
  try {
    if (dir.onPostgres) {
      // Opened before anything is written, so an unreachable or foreign database leaves no files.
      store = await openStore(dir.store);
      if ((await store.tenants.list()).length > 0) {
        throw new SvcError('already_exists', `the database ${redactUrl(dir.store)} already holds tenants`, {
          remedy:
            "it belongs to a deployment already: give this replica a copy of that deployment's data dir instead of running init",
        });
      }
    }
    dir.create();
    if (!existsSync(dir.tlsCert)) {
      const cert = await createDeploymentCertificate({ now: opts.now });
      writeSecretFile(dir.tlsKey, cert.keyPem);
      writeFileSync(dir.tlsCert, cert.certPem, { mode: 0o644 });
    }
    store ??= await openStore(dir.database);
    const t = await createTenant(dir, store, {
      tenantId: opts.tenantId,
      adminId: opts.adminId,
      now: opts.now,
    });
    return {
      tenant_id: t.tenant_id,
      admin_id: t.admin_id as string,
      admin_token: t.admin_token as string,
      admin_token_id: t.admin_token_id as string,
      data_dir: root,
      public_key: t.public_key,
      key_id: t.key_id,
      ca_cert: dir.tlsCert,
      tls_fingerprint256: new X509Certificate(readFileSync(dir.tlsCert)).fingerprint256,
    };
  } finally {
    await store?.close();
  }
}
