-- The conversation archive: one row per turn of a session (kind 'turn'),
-- and one per compaction summary the client wrote (kind 'summary'). A turn
-- archived again with the same content hash is left alone; a turn that
-- grew (it was still open) is replaced.
CREATE TABLE chunks (
    id         INTEGER PRIMARY KEY,       -- also the rowid in chunks_fts
    key        TEXT NOT NULL UNIQUE,      -- shown to people and the model: 'k' + 11 hex digits
    session_id TEXT NOT NULL,
    project    TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL,             -- 'turn' or 'summary'
    turn       INTEGER NOT NULL,          -- 1, 2, … within the session
    ts_start   INTEGER NOT NULL DEFAULT 0, -- unix ms
    ts_end     INTEGER NOT NULL DEFAULT 0,
    prompt     TEXT NOT NULL DEFAULT '',  -- the user's words, shortened
    summary    TEXT NOT NULL DEFAULT '',  -- extractive, one line
    body       TEXT NOT NULL,             -- the turn, rendered; swapped outputs by reference
    body_hash  TEXT NOT NULL,             -- sha256 of body
    meta       TEXT NOT NULL DEFAULT '{}', -- JSON: tools, files, commands, errors, decisions, tasks, entries
    UNIQUE (session_id, kind, turn)
);
CREATE INDEX chunks_by_project ON chunks (project, ts_end);

-- Full-text index of the chunks, without a copy of their text (contentless):
-- prompt, summary, body with the full text of the swapped outputs it refers
-- to, and the files the turn touched.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    prompt, summary, body, files,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- How far each session's transcript has been archived: the byte offset and
-- line of the first line of the last turn, which may still be open.
CREATE TABLE archive_cursors (
    session_id TEXT PRIMARY KEY,
    transcript TEXT NOT NULL,
    offset     INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    turn       INTEGER NOT NULL,      -- the index the turn at offset gets
    summaries  INTEGER NOT NULL DEFAULT 0, -- compaction summaries archived so far
    usage      TEXT NOT NULL DEFAULT '{}'  -- the context usage seen so far (JSON)
);

-- Summaries of completed tasks nobody mentions any more ("cold"), made once
-- per task so that compaction can keep them verbatim.
CREATE TABLE cold_tasks (
    session_id TEXT NOT NULL,
    task_id    TEXT NOT NULL,
    subject    TEXT NOT NULL,
    turn_from  INTEGER NOT NULL,
    turn_to    INTEGER NOT NULL,
    summary    TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, task_id)
);
