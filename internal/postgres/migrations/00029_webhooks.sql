-- +goose Up
-- Locks: nothing in use: it creates new tables and their indexes.
-- Webhooks (docs/webhooks.md): endpoints, events and their outbox,
-- deliveries and the log of their attempts. An event is written in the
-- transaction of the change it reports, with a row in webhook_outbox;
-- the dispatcher of a serve process takes outbox rows and writes a
-- delivery per subscribed endpoint, in one transaction, so nothing
-- acknowledged is lost. Endpoints carry their dispatcher's lease
-- (lease_owner, lease_until): one process at a time sends to an
-- endpoint, in the order of its events. Secrets are sealed (AES-GCM) as
-- the API keys' are. Times are microseconds since 1970. As SQLite's 00029.
CREATE TABLE webhook_endpoints (
    id                  TEXT COLLATE "C" PRIMARY KEY,
    account_id          TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    environment         TEXT COLLATE "C" NOT NULL,
    url                 TEXT NOT NULL,
    description         TEXT NOT NULL,
    event_types         TEXT NOT NULL, -- space-separated; '' for every type
    enabled             BOOLEAN NOT NULL,
    disabled_reason     TEXT NOT NULL,
    failing_since       BIGINT,
    secret              BYTEA NOT NULL,
    previous_secret     BYTEA,
    previous_expires_at BIGINT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    lease_owner         TEXT NOT NULL DEFAULT '',
    lease_until         BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (account_id, environment, id);

-- Ids are "evt_" and the ULID of the (first) change record they report:
-- they sort by time, and the retention purge deletes by id range.
CREATE TABLE webhook_events (
    id          TEXT COLLATE "C" PRIMARY KEY,
    account_id  TEXT COLLATE "C" NOT NULL,
    environment TEXT COLLATE "C" NOT NULL,
    type        TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    campaign_id TEXT COLLATE "C",
    payload     TEXT NOT NULL
);
CREATE INDEX webhook_events_tenant ON webhook_events (account_id, environment, id);

CREATE TABLE webhook_outbox (
    event_id TEXT COLLATE "C" PRIMARY KEY
);

CREATE TABLE webhook_deliveries (
    id              TEXT COLLATE "C" PRIMARY KEY,
    endpoint_id     TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        TEXT COLLATE "C" NOT NULL,
    account_id      TEXT COLLATE "C" NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, event_id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
    id           TEXT COLLATE "C" PRIMARY KEY,
    account_id   TEXT COLLATE "C" NOT NULL,
    endpoint_id  TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id     TEXT COLLATE "C" NOT NULL,
    event_type   TEXT NOT NULL,
    attempted_at BIGINT NOT NULL,
    status       INTEGER NOT NULL,
    latency_ms   BIGINT NOT NULL,
    error        TEXT NOT NULL,
    response     TEXT NOT NULL,
    succeeded    BOOLEAN NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_outbox;
DROP TABLE webhook_events;
DROP TABLE webhook_endpoints;
