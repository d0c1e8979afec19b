-- What the model was given in place of each stored output, and whether the
-- client took it (the proof of effect, checked in the transcript at Stop).
ALTER TABLE entries ADD COLUMN kind TEXT NOT NULL DEFAULT 'view';       -- view, condensed, pointer
ALTER TABLE entries ADD COLUMN replacement TEXT NOT NULL DEFAULT '';    -- sha256 of the text the hook's reply put in place of the output; '' when not replaced by a hook reply
ALTER TABLE entries ADD COLUMN applied INTEGER;                         -- NULL: not checked yet; 1: the transcript holds the replacement; 0: it does not
ALTER TABLE entries ADD COLUMN verdict TEXT NOT NULL DEFAULT '';        -- when not applied: what the transcript holds instead, and why
CREATE INDEX entries_unproven ON entries (session_id) WHERE applied IS NULL AND replacement != '';

-- How far the proof of effect has read each session's transcript.
CREATE TABLE proof_cursors (
    session_id TEXT PRIMARY KEY,
    transcript TEXT NOT NULL,
    offset     INTEGER NOT NULL,
    line       INTEGER NOT NULL
);
