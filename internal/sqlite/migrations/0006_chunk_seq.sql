-- A change number for chunks, for `ctxkeep team sync`: every chunk written
-- (a new turn, or a turn replaced because it grew) takes the next number
-- of chunk_seq, which never goes back, even when the row with the highest
-- number is the one replaced. Sync pushes the chunks numbered past its
-- cursor. Numbers are taken inside the write transaction, so they commit
-- in order: a reader never sees a gap filled later.
CREATE TABLE chunk_seq (n INTEGER NOT NULL);
INSERT INTO chunk_seq (n) SELECT coalesce(max(id), 0) FROM chunks;
ALTER TABLE chunks ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE chunks SET seq = id;
CREATE INDEX chunks_by_project_seq ON chunks (project, seq);
CREATE TRIGGER chunks_seq AFTER INSERT ON chunks BEGIN
    UPDATE chunk_seq SET n = n + 1;
    UPDATE chunks SET seq = (SELECT n FROM chunk_seq) WHERE id = new.id;
END;
