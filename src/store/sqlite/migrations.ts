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
  // 2: registrations, tasks and budgets, decisions, approvals, grants, and the journal
  `
  ALTER TABLE tenants ADD COLUMN approval_tier INTEGER NOT NULL DEFAULT 3;
  -- bumped in the same transaction as any capability or policy change, so a daemon that
  -- caches the compiled policy and the verb list knows on the next decision to reload
  ALTER TABLE tenants ADD COLUMN registry_version INTEGER NOT NULL DEFAULT 0;

  CREATE TABLE capabilities (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    tier INTEGER NOT NULL CHECK (tier BETWEEN 0 AND 9),
    irreversible INTEGER NOT NULL CHECK (irreversible IN (0, 1)),
    custody TEXT NOT NULL CHECK (custody IN ('grant', 'brokered', 'pass_through')),
    actions TEXT NOT NULL,
    cost_micros INTEGER NOT NULL CHECK (cost_micros >= 0),
    requestable INTEGER NOT NULL CHECK (requestable IN (0, 1)),
    approvers TEXT NOT NULL DEFAULT '[]',
    owners TEXT NOT NULL DEFAULT '[]',
    surface_id TEXT,
    operation TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
  ) STRICT;

  CREATE TABLE permissions (
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, actor_id, capability),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id),
    FOREIGN KEY (tenant_id, capability) REFERENCES capabilities(tenant_id, name)
  ) STRICT;

  CREATE TABLE entitlements (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    access_request_id TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE INDEX entitlements_by_actor ON entitlements(tenant_id, actor_id, capability);

  CREATE TABLE policies (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    version INTEGER NOT NULL,
    text TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE tasks (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    title TEXT,
    sponsor_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'active', 'closed')),
    parent_id TEXT,
    root_id TEXT NOT NULL,
    budget_micros INTEGER NOT NULL CHECK (budget_micros >= 0),
    reserved_micros INTEGER NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
    constraints TEXT,
    constraints_installed_at TEXT,
    constraints_installed_by TEXT,
    created_at TEXT NOT NULL,
    closed_at TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, sponsor_id) REFERENCES actors(tenant_id, id)
  ) STRICT;
  CREATE INDEX tasks_by_root ON tasks(tenant_id, root_id);

  CREATE TABLE task_actors (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, actor_id),
    FOREIGN KEY (tenant_id, task_id) REFERENCES tasks(tenant_id, id),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  ) STRICT;

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
    amount_micros INTEGER NOT NULL,
    grant_id TEXT,
    approval_id TEXT,
    receipt_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;

  CREATE TABLE effect_keys (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('claimed', 'deferred')),
    intent_id TEXT NOT NULL,
    request_digest TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, step)
  ) STRICT;

  CREATE TABLE approvals (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    capability TEXT NOT NULL,
    action TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    amount_micros INTEGER NOT NULL,
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
  ) STRICT;
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
  ) STRICT;

  CREATE TABLE admissions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    root_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    amount_micros INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE INDEX admissions_by_root ON admissions(tenant_id, root_id);

  CREATE TABLE journal (
    tenant_id TEXT NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    kind TEXT NOT NULL,
    receipt_id TEXT NOT NULL,
    task_id TEXT,
    record TEXT NOT NULL,
    record_hash TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    tier INTEGER NOT NULL,
    allowed INTEGER NOT NULL CHECK (allowed IN (0, 1)),
    grant_id TEXT NOT NULL,
    amount_micros INTEGER NOT NULL,
    occurred_at TEXT NOT NULL,
    linked_at TEXT NOT NULL,
    tombstone TEXT,
    leaf TEXT NOT NULL,
    chain_hash TEXT NOT NULL,
    PRIMARY KEY (tenant_id, sequence)
  ) STRICT;
  CREATE UNIQUE INDEX journal_receipts ON journal(tenant_id, receipt_id);
  CREATE INDEX journal_by_task ON journal(tenant_id, task_id, sequence);

  CREATE TABLE journal_state (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    size INTEGER NOT NULL,
    chain_hash TEXT NOT NULL,
    frontier TEXT NOT NULL
  ) STRICT;
  `,
  // 3: signed tree heads. One head per size, never changed: two heads of one log can then
  // never disagree on the root at a size, and an anchor keeps the key id that signed it.
  `
  CREATE TABLE anchors (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    tree_size INTEGER NOT NULL CHECK (tree_size >= 1),
    root_hash TEXT NOT NULL CHECK (length(root_hash) = 64),
    signed_at TEXT NOT NULL,
    signature TEXT NOT NULL,
    key_id TEXT NOT NULL,
    algorithm TEXT NOT NULL CHECK (algorithm = 'ed25519'),
    PRIMARY KEY (tenant_id, tree_size),
    FOREIGN KEY (tenant_id, key_id) REFERENCES signing_keys(tenant_id, key_id)
  ) STRICT;
  CREATE TRIGGER anchors_no_update BEFORE UPDATE ON anchors
    BEGIN SELECT RAISE(ABORT, 'a signed tree head is never changed'); END;
  CREATE TRIGGER anchors_no_delete BEFORE DELETE ON anchors
    BEGIN SELECT RAISE(ABORT, 'a signed tree head is never deleted'); END;
  `,
  // 4: integration operations. Surface state per tenant (rotations, revocations), secrets
  // sealed under a key kept outside the database, and brokered executions: a 'pending' row
  // is committed with the allowing decision, before the provider is called, so a crash
  // mid-call is found at start-up and recorded as outcome unknown, never re-sent.
  `
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
  ) STRICT;

  CREATE TABLE secrets (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    key_id TEXT NOT NULL,
    sealed BLOB NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
  ) STRICT;

  CREATE TABLE executions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    intent_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    step TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    action TEXT NOT NULL,
    tier INTEGER NOT NULL,
    surface_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    credential_ref TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'unknown')),
    status INTEGER,
    effect_id TEXT,
    digest TEXT,
    receipt_id TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  -- one execution per intent: with the effect-key claim, one per effect key
  CREATE UNIQUE INDEX executions_one_per_intent ON executions(tenant_id, intent_id);
  CREATE INDEX executions_pending ON executions(state) WHERE state = 'pending';
  `,
  // 5: access requests and their manager cards, and approval channels. A request is decided
  // once (the decision and who made it live on the request; each card's state derives from
  // it); the chat and collaboration user ids that map a channel user to an approver are
  // exact, registered and unique per tenant; chat signatures seen inside the replay window
  // are kept here so a replay is refused across restarts and daemon processes.
  `
  CREATE TABLE access_requests (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    capability TEXT NOT NULL,
    reason TEXT NOT NULL,
    duration_seconds INTEGER NOT NULL CHECK (duration_seconds > 0),
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'revoked')),
    decision TEXT CHECK (decision IN ('approve', 'deny')),
    decided_by TEXT,
    decided_at TEXT,
    granted_seconds INTEGER,
    note TEXT,
    entitlement_id TEXT,
    revoked_by TEXT,
    revoked_at TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id),
    FOREIGN KEY (tenant_id, capability) REFERENCES capabilities(tenant_id, name)
  ) STRICT;
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
  ) STRICT;
  CREATE INDEX manager_cards_by_recipient ON manager_cards(tenant_id, recipient_id, created_at);

  ALTER TABLE entitlements ADD COLUMN revoked_by TEXT;
  CREATE INDEX entitlements_by_time ON entitlements(tenant_id, created_at, id);

  ALTER TABLE actors ADD COLUMN chat_user_id TEXT;
  ALTER TABLE actors ADD COLUMN collab_user_id TEXT;
  CREATE UNIQUE INDEX actors_chat_user ON actors(tenant_id, chat_user_id) WHERE chat_user_id IS NOT NULL;
  CREATE UNIQUE INDEX actors_collab_user ON actors(tenant_id, collab_user_id) WHERE collab_user_id IS NOT NULL;

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
  ) STRICT;

  CREATE TABLE channel_signatures (
    channel_id TEXT NOT NULL,
    signature TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, signature)
  ) STRICT;
  CREATE INDEX channel_signatures_expiry ON channel_signatures(expires_at);
  `,
  // 6: an observation is looked up by intent inside the write transaction; without this index
  // the lookup walked the tenant's whole journal. Partial, so decisions do not pay for it.
  // Then evidence-format.md §7 as corrected: a redacted entry's record_hash is 64 zeros and
  // both its times are the tombstone's removed_at; entries redacted earlier are brought to
  // that form, and the operational copies of their private parts are erased as a redaction
  // now does. Their intent ids were blanked, so intents are found by the receipt they hold.
  // And a brokered execution records the daemon process that holds its call open, so a daemon
  // starting beside a live one judges only the calls a dead process left pending.
  `
  CREATE INDEX journal_observations ON journal(tenant_id, intent_id) WHERE kind = 'observation';

  CREATE TEMP TABLE redacted_intents AS
    SELECT i.tenant_id, i.id FROM intents i JOIN journal j
      ON j.tenant_id = i.tenant_id AND j.receipt_id = i.receipt_id
    WHERE j.tombstone IS NOT NULL AND j.sequence <= json_extract(j.tombstone, '$.to_sequence');
  UPDATE intents SET request_digest = '', request = '{}', reason = NULL
    WHERE (tenant_id, id) IN (SELECT tenant_id, id FROM redacted_intents);
  UPDATE effect_keys SET request_digest = ''
    WHERE (tenant_id, intent_id) IN (SELECT tenant_id, id FROM redacted_intents);
  UPDATE approvals SET request_digest = '', note = NULL
    WHERE (tenant_id, intent_id) IN (SELECT tenant_id, id FROM redacted_intents);
  UPDATE executions SET effect_id = NULL, digest = NULL
    WHERE (tenant_id, intent_id) IN (SELECT tenant_id, id FROM redacted_intents);
  DROP TABLE redacted_intents;

  ALTER TABLE executions ADD COLUMN owner_pid INTEGER;
  ALTER TABLE executions ADD COLUMN owner_instance TEXT;

  UPDATE journal SET record_hash = '${'0'.repeat(64)}',
      occurred_at = json_extract(tombstone, '$.removed_at'),
      linked_at = json_extract(tombstone, '$.removed_at')
    WHERE tombstone IS NOT NULL AND sequence <= json_extract(tombstone, '$.to_sequence');
  `,
  // 7: the operator console. Themes are revisions, never edited in place, so an appearance
  // write names the revision it edits and a stale one is refused instead of overwriting.
  // Sessions are stored as the SHA-256 of their secret: a read of the database signs no one in.
  `
  CREATE TABLE themes (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    revision INTEGER NOT NULL CHECK (revision >= 1),
    document TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('install', 'editor')),
    created_by TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, revision)
  ) STRICT;

  CREATE TABLE console_sessions (
    id_hash BLOB PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    token_id TEXT,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    FOREIGN KEY (tenant_id, actor_id) REFERENCES actors(tenant_id, id)
  ) STRICT;
  CREATE INDEX console_sessions_expiry ON console_sessions(expires_at);
  `,
  // 8: proofs, timestamps and witnesses. merkle_nodes holds every complete Merkle subtree of
  // level >= 1 (level 0 is the journal's leaf), written with the append that finishes it, so
  // any inclusion or consistency proof is O(log n) reads. Journals older than this table are
  // listed in merkle_backfill and filled in at the next open (store.ts). An anchor's RFC 3161
  // timestamp and its witness cosignatures arrive after the head is signed (network calls
  // never hold the write lock), so they live beside the immutable anchors, written once.
  `
  CREATE TABLE merkle_nodes (
    tenant_id TEXT NOT NULL,
    level INTEGER NOT NULL CHECK (level >= 1),
    idx INTEGER NOT NULL CHECK (idx >= 0),
    hash BLOB NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (tenant_id, level, idx)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE merkle_backfill (
    tenant_id TEXT PRIMARY KEY,
    size INTEGER NOT NULL
  ) STRICT;
  INSERT INTO merkle_backfill (tenant_id, size) SELECT tenant_id, size FROM journal_state WHERE size >= 2;

  CREATE TABLE anchor_timestamps (
    tenant_id TEXT NOT NULL,
    tree_size INTEGER NOT NULL,
    authority TEXT NOT NULL,
    digest TEXT NOT NULL CHECK (length(digest) = 64),
    time TEXT NOT NULL,
    token TEXT,
    noop INTEGER NOT NULL CHECK (noop IN (0, 1)),
    PRIMARY KEY (tenant_id, tree_size),
    FOREIGN KEY (tenant_id, tree_size) REFERENCES anchors(tenant_id, tree_size)
  ) STRICT;
  CREATE TABLE anchor_witnesses (
    tenant_id TEXT NOT NULL,
    tree_size INTEGER NOT NULL,
    witness_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    signed_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, tree_size, witness_id),
    FOREIGN KEY (tenant_id, tree_size) REFERENCES anchors(tenant_id, tree_size)
  ) STRICT;
  CREATE TRIGGER anchor_timestamps_no_update BEFORE UPDATE ON anchor_timestamps
    BEGIN SELECT RAISE(ABORT, 'an anchor timestamp is never changed'); END;
  CREATE TRIGGER anchor_witnesses_no_update BEFORE UPDATE ON anchor_witnesses
    BEGIN SELECT RAISE(ABORT, 'a witness cosignature is never changed'); END;
  `,
  // 9: the bound on open approvals counts a requester's and a task's pending approvals on
  // every decision that would open one; partial, so decided approvals cost the count nothing.
  `
  CREATE INDEX approvals_open_by_requester ON approvals(tenant_id, requester_id, expires_at) WHERE status = 'pending';
  CREATE INDEX approvals_open_by_task ON approvals(tenant_id, task_id, expires_at) WHERE status = 'pending';
  `,
  // 10: an approval keeps the body its digest
  // binds (params included, as CJSON) and where its amount came from, so every approval
  // surface shows what would run. Approvals opened earlier keep NULL: their body was never
  // stored. The index serves the console's newest-first pages.
  `
  ALTER TABLE approvals ADD COLUMN request TEXT;
  ALTER TABLE approvals ADD COLUMN amount_source TEXT
    CHECK (amount_source IN ('requester_estimate', 'capability_default', 'params'));
  CREATE INDEX approvals_by_created ON approvals(tenant_id, created_at, id);
  `,
  // 11: a logo saved through the Settings editor is kept with its theme
  // revision, named by the SHA-256 of its bytes; the theme document names it
  // /tenant-assets/logo-<sha256>.<ext> and never carries a data: URL (semantics.md, "Console
  // appearance"). The provisioned asset store on disk is never written by the editor.
  `
  ALTER TABLE themes ADD COLUMN logo_name TEXT
    CHECK (logo_name IS NULL OR (length(logo_name) IN (73, 74) AND logo_name GLOB 'logo-*'));
  ALTER TABLE themes ADD COLUMN logo BLOB CHECK ((logo IS NULL) = (logo_name IS NULL));
  CREATE INDEX themes_logo ON themes (tenant_id, logo_name) WHERE logo_name IS NOT NULL;
  `,
  // 12: notifications (issue 26). Destinations per tenant; the outbox: an event row written in
  // the transaction of the change it reports, and one delivery per subscribed destination,
  // leased by the daemon that attempts it (lease_owner, lease_until) so several daemons on one
  // data dir deliver each once. A delivery outlives its destination (it ends `disabled`), so
  // it names the destination without a foreign key. Expired approvals are announced once:
  // approvals that had already expired before this migration count as announced.
  `
  CREATE TABLE notify_destinations (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('webhook', 'chat', 'collab', 'email')),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_name TEXT NOT NULL,
    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    disabled_reason TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE TABLE notify_events (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE TABLE notify_deliveries (
    tenant_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead', 'disabled')),
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at TEXT,
    last_status INTEGER,
    last_error TEXT,
    lease_owner TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    delivered_at TEXT,
    PRIMARY KEY (tenant_id, event_id, destination_id),
    FOREIGN KEY (tenant_id, event_id) REFERENCES notify_events(tenant_id, id),
    CHECK ((state = 'pending') = (next_attempt_at IS NOT NULL))
  ) STRICT;
  CREATE INDEX notify_deliveries_due ON notify_deliveries(next_attempt_at) WHERE state = 'pending';
  CREATE INDEX notify_deliveries_recent ON notify_deliveries(tenant_id, created_at, event_id, destination_id);
  CREATE INDEX notify_deliveries_by_destination ON notify_deliveries(tenant_id, destination_id, state);
  CREATE TABLE notify_budget_marks (
    tenant_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    percent INTEGER NOT NULL CHECK (percent IN (80, 100)),
    event_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, task_id, percent),
    FOREIGN KEY (tenant_id, task_id) REFERENCES tasks(tenant_id, id)
  ) STRICT;
  ALTER TABLE approvals ADD COLUMN expiry_announced INTEGER NOT NULL DEFAULT 0
    CHECK (expiry_announced IN (0, 1));
  UPDATE approvals SET expiry_announced = 1
    WHERE expires_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now');
  CREATE INDEX approvals_unannounced_expiry ON approvals(expires_at)
    WHERE status = 'pending' AND expiry_announced = 0;
  `,
  // 13: notifications to people (issue 26). A destination's kind-specific settings (never a
  // secret), its reminder delay and escalation destination; the chat and collab messages posted
  // for an approval, so they can be turned into the outcome once it is decided; and the
  // reminders sent, once per approval and destination.
  `
  ALTER TABLE notify_destinations ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE notify_destinations ADD COLUMN remind_after_seconds INTEGER
    CHECK (remind_after_seconds IS NULL OR remind_after_seconds > 0);
  ALTER TABLE notify_destinations ADD COLUMN escalate_to TEXT;
  CREATE TABLE notify_messages (
    tenant_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    target TEXT NOT NULL,
    message_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    posted_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, destination_id, approval_id, target, message_id)
  ) STRICT;
  CREATE TABLE notify_reminders (
    tenant_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, approval_id, destination_id)
  ) STRICT;
  `,
  // Staged decision.refused deliveries (core/notify/staged-refusal.ts): appended by the
  // decision (a rowid append, no other index), fanned out by the delivery loop.
  `
  CREATE TABLE notify_staged (
    seq INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    destination_id TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    intent_id TEXT NOT NULL
  ) STRICT;
  `,
  // Policy history (issue 27): every version a tenant's policy had, append-only, written in the
  // transaction that stores the policy. A policy stored before this migration gets one row for
  // its current version, set by 'migration' at its updated_at (who set it was never recorded,
  // and earlier texts were not kept). svc_sha256_hex is registered on the connection by
  // migrate() (database.ts): SQLite has no SHA-256 of its own.
  `
  CREATE TABLE policy_versions (
    tenant_id TEXT NOT NULL REFERENCES tenants(id),
    version INTEGER NOT NULL CHECK (version > 0),
    text TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    set_by TEXT NOT NULL,
    message TEXT,
    set_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, version)
  ) STRICT;
  INSERT INTO policy_versions (tenant_id, version, text, sha256, set_by, message, set_at)
    SELECT tenant_id, version, text, svc_sha256_hex(text), 'migration',
      'recorded when the policy history began; earlier versions were not kept', updated_at
    FROM policies;
  CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'a policy version is never changed'); END;
  CREATE TRIGGER policy_versions_no_delete BEFORE DELETE ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'a policy version is never deleted'); END;
  `,
  // (issue 27) What each decision's policy step was evaluated with, so a replay puts the same
  // question to a candidate policy: the policy version that decided, references to the actor's
  // and the capability's attributes and to the determining policies (stored once per distinct
  // value, content-addressed by the SHA-256 of their canonical JSON: they change rarely), and
  // the per-request values. One row per journal record of a decision that reached the policy
  // step, written in the decision's transaction. No foreign keys: both rows are written by the
  // same planned decision, and a check per insert would cost the hot path three lookups.
  // Decisions recorded before this migration have no row: a replay counts and skips them.
  `
  CREATE TABLE policy_input_snapshots (
    tenant_id TEXT NOT NULL,
    id INTEGER NOT NULL CHECK (id >= 1),
    hash BLOB NOT NULL CHECK (length(hash) = 32),
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
  ) STRICT;
  CREATE UNIQUE INDEX policy_input_snapshots_hash ON policy_input_snapshots (tenant_id, hash);
  CREATE TABLE decision_inputs (
    tenant_id TEXT NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    policy_version INTEGER NOT NULL CHECK (policy_version >= 0),
    actor INTEGER NOT NULL,
    capability INTEGER NOT NULL,
    determining INTEGER NOT NULL,
    action TEXT NOT NULL,
    amount_micros INTEGER NOT NULL CHECK (amount_micros >= 0),
    brokered INTEGER NOT NULL CHECK (brokered IN (0, 1)),
    now_epoch_s INTEGER NOT NULL,
    approval_tier INTEGER NOT NULL,
    allow INTEGER NOT NULL CHECK (allow IN (0, 1)),
    no_policy INTEGER NOT NULL CHECK (no_policy IN (0, 1)),
    PRIMARY KEY (tenant_id, sequence)
  ) STRICT, WITHOUT ROWID;
  `,
  // shadow policies (issue 27): a tenant's candidate, evaluated against every live decision
  // after the commit, with what its daemons compared and the differences they found. A data
  // dir that already holds data starts with no candidate.
  `
  CREATE TABLE policy_shadows (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
    candidate_id TEXT NOT NULL,
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    set_at TEXT NOT NULL,
    compared INTEGER NOT NULL DEFAULT 0 CHECK (compared >= 0),
    dropped INTEGER NOT NULL DEFAULT 0 CHECK (dropped >= 0),
    uncompiled INTEGER NOT NULL DEFAULT 0 CHECK (uncompiled >= 0),
    failure TEXT,
    failure_registry_version INTEGER
  ) STRICT;
  CREATE TABLE policy_shadow_differences (
    tenant_id TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    intent_id TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    inputs TEXT NOT NULL,
    current TEXT NOT NULL,
    candidate TEXT NOT NULL,
    PRIMARY KEY (tenant_id, candidate_id, seq)
  ) STRICT;
  `,
  // journal activity (issue 30): records per tenant, clock hour (UTC), kind, outcome and
  // refusal code, counted by a trigger in the transaction of every journal append, so the
  // console's overview reads a few hundred rows rather than scanning the journal. Counts are an
  // operational summary, never evidence: the journal stays the record. Existing journals are
  // counted once here.
  `
  CREATE TABLE journal_activity (
    tenant_id TEXT NOT NULL,
    hour TEXT NOT NULL,
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL,
    code TEXT NOT NULL,
    n INTEGER NOT NULL CHECK (n >= 1),
    PRIMARY KEY (tenant_id, hour, kind, outcome, code)
  ) STRICT, WITHOUT ROWID;
  CREATE TRIGGER journal_activity_count AFTER INSERT ON journal BEGIN
    INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n)
    VALUES (NEW.tenant_id, substr(NEW.occurred_at, 1, 13), NEW.kind,
      CASE WHEN json_valid(NEW.record) THEN coalesce(CAST(json_extract(NEW.record, '$.outcome') AS TEXT), '') ELSE '' END,
      CASE WHEN json_valid(NEW.record) THEN coalesce(CAST(json_extract(NEW.record, '$.code') AS TEXT), '') ELSE '' END,
      1)
    ON CONFLICT (tenant_id, hour, kind, outcome, code) DO UPDATE SET n = n + 1;
  END;
  INSERT INTO journal_activity (tenant_id, hour, kind, outcome, code, n)
  SELECT tenant_id, substr(occurred_at, 1, 13), kind,
    CASE WHEN json_valid(record) THEN coalesce(CAST(json_extract(record, '$.outcome') AS TEXT), '') ELSE '' END,
    CASE WHEN json_valid(record) THEN coalesce(CAST(json_extract(record, '$.code') AS TEXT), '') ELSE '' END,
    count(*)
  FROM journal GROUP BY 1, 2, 3, 4, 5;
  `,
  // journal activity, counted by the journal's writer (journal.ts) in the append's own
  // transaction, with the outcome and code it already holds: the trigger parsed every
  // appended record four times in SQLite's JSON functions, a cost on every decision. Every
  // SQLite journal row is appended through that writer, so the counts stay whole.
  `
  DROP TRIGGER journal_activity_count;
  `,
  // complete Merkle subtrees keyed by the log size whose append completed them, then level:
  // keyed by (level, idx), an append's subtrees each went to the right edge of its own level,
  // a different page of the table per level, and every commit wrote all of those pages to
  // the WAL (about a fifth of a decision batch's pages). Now each append's rows follow the
  // last one's. The index is implied: idx = at_size / 2^level - 1.
  `
  CREATE TABLE merkle_nodes_by_size (
    tenant_id TEXT NOT NULL,
    at_size INTEGER NOT NULL CHECK (at_size >= 2),
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 62 AND at_size % (1 << level) = 0),
    hash BLOB NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (tenant_id, at_size, level)
  ) STRICT, WITHOUT ROWID;
  INSERT INTO merkle_nodes_by_size (tenant_id, at_size, level, hash)
  SELECT tenant_id, (idx + 1) << level, level, hash FROM merkle_nodes
  ORDER BY tenant_id, (idx + 1) << level, level;
  DROP TABLE merkle_nodes;
  ALTER TABLE merkle_nodes_by_size RENAME TO merkle_nodes;
  `,
];
