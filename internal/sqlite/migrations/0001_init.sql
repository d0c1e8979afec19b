-- Sessions seen by the hooks.
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    first_seen      INTEGER NOT NULL, -- unix ms
    last_seen       INTEGER NOT NULL,
    cwd             TEXT NOT NULL DEFAULT '',
    transcript_path TEXT NOT NULL DEFAULT '',
    client_version  TEXT NOT NULL DEFAULT ''
);

-- One row per hook call, moved here from the per-session journals.
CREATE TABLE events (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL,
    ts            INTEGER NOT NULL, -- unix ms
    event         TEXT NOT NULL,
    tool          TEXT NOT NULL DEFAULT '',
    agent_id      TEXT NOT NULL DEFAULT '',
    payload_bytes INTEGER NOT NULL,
    duration_us   INTEGER NOT NULL,
    outcome       TEXT NOT NULL
);
CREATE INDEX events_by_session ON events (session_id, ts);

-- How far each journal has been read, in bytes. Updated in the same
-- transaction as the events it covers, so every line lands exactly once.
CREATE TABLE journal_cursors (
    session_id TEXT PRIMARY KEY,
    offset     INTEGER NOT NULL
);

-- One row per stored blob. The blob file is durable before its row exists
-- and its row is gone before the file is removed (docs/STORE_FORMAT.md).
CREATE TABLE blobs (
    hash        TEXT PRIMARY KEY, -- hex sha256 of the exact content
    size        INTEGER NOT NULL, -- bytes of content
    stored_size INTEGER NOT NULL, -- bytes on disk (zstd)
    created_at  INTEGER NOT NULL  -- unix ms
);
