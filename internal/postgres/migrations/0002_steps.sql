-- Steps (the local index's migration 0007): a chunk is a step of a turn,
-- numbered within it; whole-turn chunks pushed before stay, step 0. A
-- member may delete the chunks they pushed, so that a turn pushed whole
-- and then again as steps is not there twice.
ALTER TABLE chunks ADD COLUMN step integer NOT NULL DEFAULT 0;
DROP INDEX chunks_by_session;
CREATE INDEX chunks_by_session ON chunks (session_id, turn, step);
ALTER TABLE archive_cursors ADD COLUMN step integer NOT NULL DEFAULT 1;
CREATE POLICY unpush ON chunks FOR DELETE USING (owner = current_user);
