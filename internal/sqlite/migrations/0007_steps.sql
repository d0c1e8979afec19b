-- Steps: the archive's unit becomes the step, one action of the assistant
-- (a response with its tool calls and their results, or a short run of
-- them) inside its prompt's turn. A chunk is now identified by session,
-- kind, turn and step; whole-turn chunks archived before (kind 'turn')
-- stay as they are, step 0. Ids are kept: they are the rowids of
-- chunks_fts. The agent (0004) and the change number (0006) are kept, and
-- the table's trigger and indexes made again.
CREATE TABLE chunks_new (
    id         INTEGER PRIMARY KEY,       -- also the rowid in chunks_fts
    key        TEXT NOT NULL UNIQUE,      -- shown to people and the model: 'k' + 11 hex digits
    session_id TEXT NOT NULL,
    project    TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL,             -- 'step', 'turn' (archived before steps) or 'summary'
    turn       INTEGER NOT NULL,          -- 1, 2, … within the session
    step       INTEGER NOT NULL DEFAULT 0, -- 1, 2, … within the turn; 0 for other kinds
    ts_start   INTEGER NOT NULL DEFAULT 0, -- unix ms
    ts_end     INTEGER NOT NULL DEFAULT 0,
    prompt     TEXT NOT NULL DEFAULT '',  -- the user's words, shortened (a turn's first step)
    summary    TEXT NOT NULL DEFAULT '',  -- extractive, one line
    body       TEXT NOT NULL,             -- the step, rendered; swapped outputs by reference
    body_hash  TEXT NOT NULL,             -- sha256 of body
    meta       TEXT NOT NULL DEFAULT '{}', -- JSON: tools, files, commands, errors, decisions, tasks, entries
    agent      TEXT NOT NULL DEFAULT 'claude-code', -- the client the session ran in
    seq        INTEGER NOT NULL DEFAULT 0, -- change number, for team sync (0006)
    UNIQUE (session_id, kind, turn, step)
);
INSERT INTO chunks_new (id, key, session_id, project, kind, turn, step, ts_start, ts_end, prompt, summary, body, body_hash, meta, agent, seq)
    SELECT id, key, session_id, project, kind, turn, 0, ts_start, ts_end, prompt, summary, body, body_hash, meta, agent, seq FROM chunks;
DROP TABLE chunks;
ALTER TABLE chunks_new RENAME TO chunks;
CREATE INDEX chunks_by_project ON chunks (project, ts_end);
CREATE INDEX chunks_by_project_seq ON chunks (project, seq);
CREATE TRIGGER chunks_seq AFTER INSERT ON chunks BEGIN
    UPDATE chunk_seq SET n = n + 1;
    UPDATE chunks SET seq = (SELECT n FROM chunk_seq) WHERE id = new.id;
END;

-- The cursor sits at the first line of the session's last step; a cursor
-- of a turn-grain archive is at a turn's start, which is its step 1.
-- summaries was never used.
ALTER TABLE archive_cursors DROP COLUMN summaries;
ALTER TABLE archive_cursors ADD COLUMN step INTEGER NOT NULL DEFAULT 1;
