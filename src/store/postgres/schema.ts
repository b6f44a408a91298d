/**
 * The PostgreSQL schema: numbered migrations applied in order by migrate.ts, recorded in
 * `schema_migrations`. Never edit a released migration: append the next one.
 *
 * Migration 1 is the SQLite schema's final state (sqlite/migrations.ts 1-8) with the same
 * table and column names, keys, uniques, partial indexes, CHECKs and triggers, so each
 * adapter file mirrors its SQLite twin. Types: TEXT stays TEXT (timestamps stay ISO text:
 * they are hashed byte for byte), INTEGER becomes BIGINT (the driver returns it as a
 * string), 0/1 flags SMALLINT, BLOB BYTEA. Every TEXT column is collated "C": SQLite
 * compares text byte by byte, and a database created with a language collation would
 * otherwise order ids, and so every list, differently from SQLite.
 */
const MIGRATION_1 = `
  CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    approval_tier BIGINT NOT NULL DEFAULT 3,
    -- bumped in the same transaction as any capability or policy change, so a daemon that
    -- caches the compiled policy and the verb list knows on the next decision to reload
    registry_version BIGINT NOT NULL DEFAULT 0
  );

  CREATE TABLE actors (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('agent', 'human', 'service')),
    roles TEXT NOT NULL DEFAULT '[]',
    manager_id TEXT,
    cert_subject TEXT,
    display_name TEXT,
    created_at TEXT NOT NULL,
    chat_user_id TEXT,
    collab_user_id TEXT,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE UNIQUE INDEX actors_cert_subject ON actors(cert_subject) WHERE cert_subject IS NOT NULL;
  CREATE UNIQUE INDEX actors_chat_user ON actors(tenant_id, chat_user_id) WHERE chat_user_id IS NOT NULL;
  CREATE UNIQUE INDEX actors_collab_user ON actors(tenant_id, collab_user_id) WHERE collab_user_id IS NOT NULL;

  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    secret_hash BYTEA NOT NULL,
    label TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  );
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
  );
  CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys(tenant_id) WHERE status = 'active';

  CREATE TABLE capabilities (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    tier BIGINT NOT NULL CHECK (tier BETWEEN 0 AND 9),
    irreversible SMALLINT NOT NULL CHECK (irreversible IN (0, 1)),
    custody TEXT NOT NULL CHECK (custody IN ('grant', 'brokered', 'pass_through')),
    actions TEXT NOT NULL,
    cost_micros BIGINT NOT NULL CHECK (cost_micros >= 0),
    requestable SMALLINT NOT NULL CHECK (requestable IN (0, 1)),
    approvers TEXT NOT NULL DEFAULT '[]',
    owners TEXT NOT NULL DEFAULT '[]',
    surface_id TEXT,
    operation TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
  );

  CREATE TABLE permissions (
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, actor_id, capability),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id),
    FOREIGN KEY (tenant_id, capability) REFERENCES capabilities(tenant_id, name)
  );

  CREATE TABLE entitlements (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    access_request_id TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    revoked_by TEXT,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX entitlements_by_actor ON entitlements(tenant_id, actor_id, capability);
  CREATE INDEX entitlements_by_time ON entitlements(tenant_id, created_at, id);

  CREATE TABLE policies (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    version BIGINT NOT NULL,
    text TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE tasks (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    title TEXT,
    sponsor_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'active', 'closed')),
    parent_id TEXT,
    root_id TEXT NOT NULL,
    budget_micros BIGINT NOT NULL CHECK (budget_micros >= 0),
    reserved_micros BIGINT NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
    constraints TEXT,
    constraints_installed_at TEXT,
    constraints_installed_by TEXT,
    created_at TEXT NOT NULL,
    closed_at TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, sponsor_id) REFERENCES actors(tenant_id, id)
  );
  CREATE INDEX tasks_by_root ON tasks(tenant_id, root_id);

  CREATE TABLE task_actors (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, actor_id),
    FOREIGN KEY (tenant_id, task_id) REFERENCES tasks(tenant_id, id),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  );

  CREATE TABLE intents (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    action TEXT NOT NULL,
    route TEXT NOT NULL,
    request_digest TEXT NOT NULL,
    request TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('allowed', 'refused', 'deferred')),
    code TEXT,
    reason TEXT,
    amount_micros BIGINT NOT NULL,
    grant_id TEXT,
    approval_id TEXT,
    receipt_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );

  CREATE TABLE effect_keys (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('claimed', 'deferred')),
    intent_id TEXT NOT NULL,
    request_digest TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, step)
  );

  CREATE TABLE approvals (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    capability TEXT NOT NULL,
    action TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    amount_micros BIGINT NOT NULL,
    request_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed')),
    decided_by TEXT,
    decided_at TEXT,
    channel TEXT,
    note TEXT,
    expires_at TEXT NOT NULL,
    consumed_at TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX approvals_by_key ON approvals(tenant_id, task_id, step);

  CREATE TABLE grants (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    task_id TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    presented_by TEXT,
    presented_at TEXT,
    effect_recorded_at TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );

  CREATE TABLE admissions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    root_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    amount_micros BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX admissions_by_root ON admissions(tenant_id, root_id);

  CREATE TABLE journal (
    tenant_id TEXT NOT NULL,
    sequence BIGINT NOT NULL CHECK (sequence >= 1),
    kind TEXT NOT NULL,
    receipt_id TEXT NOT NULL,
    task_id TEXT,
    record TEXT NOT NULL,
    record_hash TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    tier BIGINT NOT NULL,
    allowed SMALLINT NOT NULL CHECK (allowed IN (0, 1)),
    grant_id TEXT NOT NULL,
    amount_micros BIGINT NOT NULL,
    occurred_at TEXT NOT NULL,
    linked_at TEXT NOT NULL,
    tombstone TEXT,
    leaf TEXT NOT NULL,
    chain_hash TEXT NOT NULL,
    PRIMARY KEY (tenant_id, sequence)
  );
  CREATE UNIQUE INDEX journal_receipts ON journal(tenant_id, receipt_id);
  CREATE INDEX journal_by_task ON journal(tenant_id, task_id, sequence);
  -- an observation is looked up by intent inside the write transaction; partial, so
  -- decisions do not pay for it
  CREATE INDEX journal_observations ON journal(tenant_id, intent_id) WHERE kind = 'observation';

  CREATE TABLE journal_state (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    size BIGINT NOT NULL,
    chain_hash TEXT NOT NULL,
    frontier TEXT NOT NULL
  );

  -- A signed tree head per size, never changed or deleted (the triggers below).
  CREATE TABLE anchors (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    tree_size BIGINT NOT NULL CHECK (tree_size >= 1),
    root_hash TEXT NOT NULL CHECK (length(root_hash) = 64),
    signed_at TEXT NOT NULL,
    signature TEXT NOT NULL,
    key_id TEXT NOT NULL,
    algorithm TEXT NOT NULL CHECK (algorithm = 'ed25519'),
    PRIMARY KEY (tenant_id, tree_size),
    FOREIGN KEY (tenant_id, key_id) REFERENCES signing_keys(tenant_id, key_id)
  );

  CREATE TABLE surface_states (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    surface_id TEXT NOT NULL,
    credential_ref TEXT NOT NULL,
    retired_refs TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
    rotated_at TEXT,
    revoked_at TEXT,
    updated_by TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, surface_id)
  );

  CREATE TABLE secrets (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    key_id TEXT NOT NULL,
    sealed BYTEA NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
  );

  CREATE TABLE executions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    action TEXT NOT NULL,
    tier BIGINT NOT NULL,
    surface_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    credential_ref TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'unknown')),
    status BIGINT,
    effect_id TEXT,
    digest TEXT,
    receipt_id TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    -- the daemon process that holds the call open: start-up recovery judges only the calls
    -- a dead process left pending, never another live replica's
    owner_pid BIGINT,
    owner_instance TEXT,
    PRIMARY KEY (tenant_id, id)
  );
  -- one execution per intent: with the effect-key claim, one per effect key
  CREATE UNIQUE INDEX executions_one_per_intent ON executions(tenant_id, intent_id);
  CREATE INDEX executions_pending ON executions(state) WHERE state = 'pending';

  CREATE TABLE access_requests (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    reason TEXT NOT NULL,
    duration_seconds BIGINT NOT NULL CHECK (duration_seconds > 0),
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'revoked')),
    decision TEXT CHECK (decision IN ('approve', 'deny')),
    decided_by TEXT,
    decided_at TEXT,
    granted_seconds BIGINT,
    note TEXT,
    entitlement_id TEXT,
    revoked_by TEXT,
    revoked_at TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id),
    FOREIGN KEY (tenant_id, capability) REFERENCES capabilities(tenant_id, name)
  );
  CREATE UNIQUE INDEX access_requests_one_pending ON access_requests(tenant_id, actor_id, capability)
    WHERE status = 'pending';

  CREATE TABLE manager_cards (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    recipient_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('manager', 'owner')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, request_id, recipient_id),
    FOREIGN KEY (tenant_id, request_id) REFERENCES access_requests(tenant_id, id),
    FOREIGN KEY (tenant_id, recipient_id) REFERENCES actors(tenant_id, id)
  );
  CREATE INDEX manager_cards_by_recipient ON manager_cards(tenant_id, recipient_id, created_at);

  CREATE TABLE approval_channels (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    kind TEXT NOT NULL CHECK (kind IN ('chat', 'collab')),
    signing_secret_ref TEXT,
    openid_metadata_url TEXT,
    app_id TEXT,
    issuer TEXT,
    created_at TEXT NOT NULL,
    CHECK ((kind = 'chat' AND signing_secret_ref IS NOT NULL AND openid_metadata_url IS NULL)
      OR (kind = 'collab' AND signing_secret_ref IS NULL AND openid_metadata_url IS NOT NULL
        AND app_id IS NOT NULL AND issuer IS NOT NULL))
  );

  CREATE TABLE channel_signatures (
    channel_id TEXT NOT NULL,
    signature TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (channel_id, signature)
  );
  CREATE INDEX channel_signatures_expiry ON channel_signatures(expires_at);

  CREATE TABLE themes (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    revision BIGINT NOT NULL CHECK (revision >= 1),
    document TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('install', 'editor')),
    created_by TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, revision)
  );

  CREATE TABLE console_sessions (
    id_hash BYTEA PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    token_id TEXT,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  );
  CREATE INDEX console_sessions_expiry ON console_sessions(expires_at);

  -- Every complete Merkle subtree of level >= 1, written with the append that finishes it.
  CREATE TABLE merkle_nodes (
    tenant_id TEXT NOT NULL,
    level BIGINT NOT NULL CHECK (level >= 1),
    idx BIGINT NOT NULL CHECK (idx >= 0),
    hash BYTEA NOT NULL CHECK (octet_length(hash) = 32),
    PRIMARY KEY (tenant_id, level, idx)
  );
  -- Kept for parity with SQLite (journals older than merkle_nodes); a PostgreSQL store starts
  -- with every node written, so it stays empty unless a copy brings rows.
  CREATE TABLE merkle_backfill (
    tenant_id TEXT PRIMARY KEY,
    size BIGINT NOT NULL
  );

  CREATE TABLE anchor_timestamps (
    tenant_id TEXT NOT NULL,
    tree_size BIGINT NOT NULL,
    authority TEXT NOT NULL,
    digest TEXT NOT NULL CHECK (length(digest) = 64),
    time TEXT NOT NULL,
    token TEXT,
    noop SMALLINT NOT NULL CHECK (noop IN (0, 1)),
    PRIMARY KEY (tenant_id, tree_size),
    FOREIGN KEY (tenant_id, tree_size) REFERENCES anchors(tenant_id, tree_size)
  );
  CREATE TABLE anchor_witnesses (
    tenant_id TEXT NOT NULL,
    tree_size BIGINT NOT NULL,
    witness_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    signed_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, tree_size, witness_id),
    FOREIGN KEY (tenant_id, tree_size) REFERENCES anchors(tenant_id, tree_size)
  );

  -- SQLite's RAISE(ABORT) triggers: the message comes from the trigger's argument.
  CREATE FUNCTION svc_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
  END
  $fn$;
  CREATE TRIGGER anchors_no_update BEFORE UPDATE ON anchors
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('a signed tree head is never changed');
  CREATE TRIGGER anchors_no_delete BEFORE DELETE ON anchors
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('a signed tree head is never deleted');
  CREATE TRIGGER anchor_timestamps_no_update BEFORE UPDATE ON anchor_timestamps
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('an anchor timestamp is never changed');
  CREATE TRIGGER anchor_witnesses_no_update BEFORE UPDATE ON anchor_witnesses
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('a witness cosignature is never changed');
`;

/** Byte-order text everywhere (see above); applied to column types only (` TEXT` then `,`, ` ` or newline). */
function collateC(sql: string): string {
  return sql.replace(/ TEXT(?=[ ,\n])/g, ' TEXT COLLATE "C"');
}

/** The bound on open approvals (core/decision/open-approvals.ts): as SQLite's migration 9. */
const MIGRATION_2 = `
  CREATE INDEX approvals_open_by_requester ON approvals(tenant_id, requester_id, expires_at) WHERE status = 'pending';
  CREATE INDEX approvals_open_by_task ON approvals(tenant_id, task_id, expires_at) WHERE status = 'pending';
`;

/** An approval keeps the body it binds: as SQLite's migration 10. */
const MIGRATION_3 = `
  ALTER TABLE approvals ADD COLUMN request TEXT;
  ALTER TABLE approvals ADD COLUMN amount_source TEXT
    CHECK (amount_source IN ('requester_estimate', 'capability_default', 'params'));
  CREATE INDEX approvals_by_created ON approvals(tenant_id, created_at, id);
`;

/** Editor logo (as SQLite's migration 11): the logo bytes kept with their theme revision. */
const MIGRATION_4 = `
  ALTER TABLE themes
    ADD COLUMN logo_name TEXT,
    ADD COLUMN logo BYTEA,
    ADD CONSTRAINT themes_logo_name CHECK (logo_name ~ '^logo-[0-9a-f]{64}[.](png|jpg|webp)$'),
    ADD CONSTRAINT themes_logo_pair CHECK ((logo IS NULL) = (logo_name IS NULL));
  CREATE INDEX themes_logo ON themes (tenant_id, logo_name) WHERE logo_name IS NOT NULL;
`;

/** Notifications (as SQLite's migration 12): destinations, the outbox and its leased deliveries. */
const MIGRATION_5 = `
  CREATE TABLE notify_destinations (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('webhook', 'chat', 'collab', 'email')),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_name TEXT NOT NULL,
    enabled SMALLINT NOT NULL CHECK (enabled IN (0, 1)),
    disabled_reason TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE TABLE notify_events (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE TABLE notify_deliveries (
    tenant_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead', 'disabled')),
    attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at TEXT,
    last_status BIGINT,
    last_error TEXT,
    lease_owner TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    delivered_at TEXT,
    PRIMARY KEY (tenant_id, event_id, destination_id),
    FOREIGN KEY (tenant_id, event_id) REFERENCES notify_events(tenant_id, id),
    CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
  );
  CREATE INDEX notify_deliveries_due ON notify_deliveries(next_attempt_at) WHERE state = 'pending';
  CREATE INDEX notify_deliveries_recent ON notify_deliveries(tenant_id, created_at, event_id, destination_id);
  CREATE INDEX notify_deliveries_by_destination ON notify_deliveries(tenant_id, destination_id, state);
  CREATE TABLE notify_budget_marks (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    percent BIGINT NOT NULL CHECK (percent IN (80, 100)),
    event_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, percent),
    FOREIGN KEY (tenant_id, task_id) REFERENCES tasks(tenant_id, id)
  );
  ALTER TABLE approvals ADD COLUMN expiry_announced SMALLINT NOT NULL DEFAULT 0
    CHECK (expiry_announced IN (0, 1));
  UPDATE approvals SET expiry_announced = 1
    WHERE expires_at <= to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  CREATE INDEX approvals_unannounced_expiry ON approvals(expires_at)
    WHERE status = 'pending' AND expiry_announced = 0;
`;

/** Notifications to people (as SQLite's migration 13): settings, posted messages, reminders. */
const MIGRATION_6 = `
  ALTER TABLE notify_destinations
    ADD COLUMN settings TEXT NOT NULL DEFAULT '{}',
    ADD COLUMN remind_after_seconds BIGINT CHECK (remind_after_seconds IS NULL OR remind_after_seconds > 0),
    ADD COLUMN escalate_to TEXT;
  CREATE TABLE notify_messages (
    tenant_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    target TEXT NOT NULL,
    message_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    posted_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, destination_id, approval_id, target, message_id)
  );
  CREATE TABLE notify_reminders (
    tenant_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, approval_id, destination_id)
  );
`;

// Staged decision.refused deliveries (core/notify/staged-refusal.ts): appended by the
// decision, fanned out by the delivery loop.
const MIGRATION_7 = `
  CREATE TABLE notify_staged (
    seq BIGSERIAL PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    intent_id TEXT NOT NULL
  );
`;

/**
 * Policy history (as SQLite's policy_versions migration): append-only, one row per version;
 * a policy stored before it gets one row for its current version, set by 'migration'.
 */
const MIGRATION_POLICY_VERSIONS = `
  CREATE TABLE policy_versions (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    version BIGINT NOT NULL CHECK (version > 0),
    text TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    set_by TEXT NOT NULL,
    message TEXT,
    set_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, version)
  );
  INSERT INTO policy_versions (tenant_id, version, text, sha256, set_by, message, set_at)
    SELECT tenant_id, version, text, encode(sha256(convert_to(text, 'UTF8')), 'hex'), 'migration',
      'recorded when the policy history began; earlier versions were not kept', updated_at
    FROM policies;
  CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('a policy version is never changed');
  CREATE TRIGGER policy_versions_no_delete BEFORE DELETE ON policy_versions
    FOR EACH ROW EXECUTE FUNCTION svc_refuse_change('a policy version is never deleted');
`;

/** Decision inputs (as SQLite's migration of issue 27): what each policy step was evaluated with. */
const MIGRATION_DECISION_INPUTS = `
  CREATE TABLE policy_input_snapshots (
    tenant_id TEXT NOT NULL,
    id BIGINT NOT NULL CHECK (id >= 1),
    hash BYTEA NOT NULL CHECK (length(hash) = 32),
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE UNIQUE INDEX policy_input_snapshots_hash ON policy_input_snapshots (tenant_id, hash);
  CREATE TABLE decision_inputs (
    tenant_id TEXT NOT NULL,
    sequence BIGINT NOT NULL CHECK (sequence >= 1),
    policy_version BIGINT NOT NULL CHECK (policy_version >= 0),
    actor BIGINT NOT NULL,
    capability BIGINT NOT NULL,
    determining BIGINT NOT NULL,
    action TEXT NOT NULL,
    amount_micros BIGINT NOT NULL CHECK (amount_micros >= 0),
    brokered SMALLINT NOT NULL CHECK (brokered IN (0, 1)),
    now_epoch_s BIGINT NOT NULL,
    approval_tier BIGINT NOT NULL,
    allow SMALLINT NOT NULL CHECK (allow IN (0, 1)),
    no_policy SMALLINT NOT NULL CHECK (no_policy IN (0, 1)),
    PRIMARY KEY (tenant_id, sequence)
  );
`;

/** Shadow policies (as SQLite's migration of issue 27): the candidate, its tally, its differences. */
const MIGRATION_SHADOW = `
  CREATE TABLE policy_shadows (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    candidate_id TEXT NOT NULL,
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    set_at TEXT NOT NULL,
    compared BIGINT NOT NULL DEFAULT 0 CHECK (compared >= 0),
    dropped BIGINT NOT NULL DEFAULT 0 CHECK (dropped >= 0),
    uncompiled BIGINT NOT NULL DEFAULT 0 CHECK (uncompiled >= 0),
    failure TEXT,
    failure_registry_version BIGINT
  );
  CREATE TABLE policy_shadow_differences (
    tenant_id TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    intent_id TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    inputs TEXT NOT NULL,
    current TEXT NOT NULL,
    candidate TEXT NOT NULL,
    PRIMARY KEY (tenant_id, candidate_id, seq)
  );
`;

/**
 * The replicas the database has seen (PostgreSQL only: a SQLite data dir has one daemon).
 * Each daemon writes its row under its replica claim and beats every few seconds; times are
 * the database's clock, so replicas on hosts whose clocks disagree still compare.
 */
const MIGRATION_REPLICAS = `
  CREATE TABLE replicas (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid BIGINT NOT NULL,
    version TEXT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    last_heartbeat TIMESTAMPTZ NOT NULL
  );
`;

/**
 * Keys sealed under a key-encryption key (store/kek.ts), so replicas need no shared disk:
 * tenant signing keys and the secret-sealing key. The KEK is never here; each row names the
 * KEK that sealed it (an id derived from it), and the place it is bound to (kind, tenant,
 * key id) is the seal's additional data. PostgreSQL only: SQLite keeps key files.
 */
const MIGRATION_SEALED_KEYS = `
  CREATE TABLE sealed_keys (
    kind TEXT NOT NULL CHECK (kind IN ('signing', 'secrets')),
    tenant_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    kek_id TEXT NOT NULL,
    sealed BYTEA NOT NULL CHECK (length(sealed) > 28),
    created_at TEXT NOT NULL,
    sealed_at TEXT NOT NULL,
    PRIMARY KEY (kind, tenant_id, key_id),
    CHECK ((kind = 'secrets') = (tenant_id = ''))
  );
  CREATE UNIQUE INDEX sealed_keys_one_secret_key ON sealed_keys (kind) WHERE kind = 'secrets';
  CREATE INDEX sealed_keys_by_kek ON sealed_keys (kek_id);
`;

/**
 * Journal activity (issue 30): as SQLite's migration of the same name. A statement-level
 * trigger counts a merged insert of many decisions with one upsert per (hour, kind, outcome,
 * code), in the transaction of the append; rows are tenant-keyed and written only under the
 * tenant's append lock, so the counters add no lock a decision did not already wait for.
 * The record is read as `json` (its syntax checked, nothing converted), as the other reads
 * of it are; the two fields taken are the record's own outcome and code.
 */
const MIGRATION_JOURNAL_ACTIVITY = `
  CREATE TABLE journal_activity (
    tenant_id TEXT NOT NULL,
    hour TEXT NOT NULL,
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL,
    code TEXT NOT NULL,
    n BIGINT NOT NULL CHECK (n >= 1),
    PRIMARY KEY (tenant_id, hour, kind, outcome, code)
  );
  CREATE FUNCTION svc_journal_activity() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    INSERT INTO journal_activity AS a (tenant_id, hour, kind, outcome, code, n)
    SELECT r.tenant_id, left(r.occurred_at, 13), r.kind,
      coalesce(r.record::json ->> 'outcome', ''), coalesce(r.record::json ->> 'code', ''), count(*)
    FROM svc_new_journal r GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, hour, kind, outcome, code) DO UPDATE SET n = a.n + excluded.n;
    RETURN NULL;
  END $fn$;
  CREATE TRIGGER journal_activity_count AFTER INSERT ON journal
    REFERENCING NEW TABLE AS svc_new_journal FOR EACH STATEMENT EXECUTE FUNCTION svc_journal_activity();
  INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n)
  SELECT tenant_id, left(occurred_at, 13), kind,
    coalesce(record::json ->> 'outcome', ''), coalesce(record::json ->> 'code', ''), count(*)
  FROM journal GROUP BY 1, 2, 3, 4, 5;
`;

/**
 * Complete Merkle subtrees keyed by the log size whose append completed them, then level: as
 * SQLite's migration of the same change. Keyed by (level, idx), an append's subtrees each
 * went to the right edge of its own level in the primary-key index, a page per level; now
 * each append's entries follow the last one's.
 */
const MIGRATION_MERKLE_BY_SIZE = `
  CREATE TABLE merkle_nodes_by_size (
    tenant_id TEXT NOT NULL,
    at_size BIGINT NOT NULL CHECK (at_size >= 2),
    level BIGINT NOT NULL CHECK (level BETWEEN 1 AND 62 AND at_size % (1::bigint << level::int) = 0),
    hash BYTEA NOT NULL CHECK (octet_length(hash) = 32),
    CONSTRAINT merkle_nodes_by_size_pkey PRIMARY KEY (tenant_id, at_size, level)
  );
  INSERT INTO merkle_nodes_by_size (tenant_id, at_size, level, hash)
  SELECT tenant_id, (idx + 1) << level::int, level, hash FROM merkle_nodes;
  DROP TABLE merkle_nodes;
  ALTER TABLE merkle_nodes_by_size RENAME TO merkle_nodes;
  ALTER TABLE merkle_nodes RENAME CONSTRAINT merkle_nodes_by_size_pkey TO merkle_nodes_pkey;
`;

/**
 * Tables PostgreSQL has and SQLite has not, on purpose (the schema parity test leaves them
 * out): the replicas a database has seen (a SQLite data dir has one daemon), and keys sealed
 * in the database for replicas without a shared disk (SQLite keeps its keys as files).
 */
export const PG_ONLY_TABLES: ReadonlySet<string> = new Set(['replicas', 'sealed_keys']);

export const PG_MIGRATIONS: readonly string[] = [
  collateC(MIGRATION_1),
  MIGRATION_2,
  collateC(MIGRATION_3),
  collateC(MIGRATION_4),
  collateC(MIGRATION_5),
  collateC(MIGRATION_6),
  collateC(MIGRATION_7),
  collateC(MIGRATION_POLICY_VERSIONS),
  collateC(MIGRATION_DECISION_INPUTS),
  collateC(MIGRATION_SHADOW),
  collateC(MIGRATION_REPLICAS),
  collateC(MIGRATION_SEALED_KEYS),
  collateC(MIGRATION_JOURNAL_ACTIVITY),
  collateC(MIGRATION_MERKLE_BY_SIZE),
];
