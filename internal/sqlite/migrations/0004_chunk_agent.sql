-- The client each archived chunk comes from ('claude-code', 'codex'): one
-- archive holds the sessions of both, and search says which is which.
-- Every chunk archived before was Claude Code's.
ALTER TABLE chunks ADD COLUMN agent TEXT NOT NULL DEFAULT 'claude-code';
