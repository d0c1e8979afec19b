-- One row per tool output swapped out of the context. Several entries may
-- share a blob (the same output twice); the blob row stays while any entry
-- points at it.
CREATE TABLE entries (
    id           TEXT PRIMARY KEY,          -- 12 hex digits, shown to the model
    session_id   TEXT NOT NULL,
    tool_use_id  TEXT NOT NULL DEFAULT '',
    agent_id     TEXT NOT NULL DEFAULT '',
    tool         TEXT NOT NULL,
    input        TEXT NOT NULL DEFAULT '',  -- the call, one line: command, path, pattern
    hash         TEXT NOT NULL REFERENCES blobs (hash),
    chars        INTEGER NOT NULL,          -- characters of the original
    lines        INTEGER NOT NULL,
    view_chars   INTEGER NOT NULL,          -- characters the model saw instead
    exit_code    INTEGER,                   -- NULL when unknown
    failures     INTEGER NOT NULL DEFAULT 0,-- lines that signal a failure
    summary      TEXT NOT NULL DEFAULT '',  -- one line, for inventories
    copy_path    TEXT NOT NULL DEFAULT '',  -- plain-text copy the agent can Read
    cwd          TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,          -- unix ms
    last_access  INTEGER,                   -- unix ms of the last retrieval
    access_count INTEGER NOT NULL DEFAULT 0,
    pin_level    TEXT NOT NULL DEFAULT 'none',
    pin_reason   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX entries_by_session ON entries (session_id, created_at);
CREATE INDEX entries_by_hash ON entries (hash);
