/**
 * Numbered migrations, applied in order at open. Never edit a released migration:
 * add the next number. `PRAGMA user_version` records how far a database has come.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: identity, credentials and journal keys
  `
  CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE actors (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('agent', 'human', 'service')),
    roles TEXT NOT NULL DEFAULT '[]',
    manager_id TEXT,
    cert_subject TEXT,
    display_name TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE UNIQUE INDEX actors_cert_subject ON actors(cert_subject) WHERE cert_subject IS NOT NULL;

  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    label TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  ) STRICT;
  CREATE INDEX tokens_by_actor ON tokens(tenant_id, actor_id);

  CREATE TABLE signing_keys (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    key_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    algorithm TEXT NOT NULL CHECK (algorithm = 'ed25519'),
    status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
    created_at TEXT NOT NULL,
    retired_at TEXT,
    PRIMARY KEY (tenant_id, key_id)
  ) STRICT;
  CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys(tenant_id) WHERE status = 'active';
  `,
];
