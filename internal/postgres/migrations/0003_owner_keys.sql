-- Keys are unique per owner. A chunk's key is computed from its session id
-- (archive.ChunkKey), which every member of the project can read: a member
-- could write a row under the key of another's next step, and that one's
-- push, meeting a row it may not update, failed on row-level security —
-- every sync of theirs after it too. Now a row is known by its key and
-- the role that pushed it: another role's row under one of your keys is
-- theirs, beside yours, and never stops your push. Reading a key or a
-- session prefers your own rows, then those of the role that pushed the
-- session first (sessions.pushed_at; a session id cannot be guessed before
-- its first push, so a squatter's rows come after).
ALTER TABLE chunks DROP CONSTRAINT chunks_pkey, ADD PRIMARY KEY (key, owner);
ALTER TABLE entries DROP CONSTRAINT entries_pkey, ADD PRIMARY KEY (id, owner);
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey, ADD PRIMARY KEY (id, owner);
ALTER TABLE sessions ADD COLUMN pushed_at timestamptz NOT NULL DEFAULT now();

-- Blobs: put_blob stores only what the server verifies. The data must be
-- as long as said and hash to the name (sha256(bytea), built in since
-- PostgreSQL 11); the name must be a SHA-256 in hex. Without data, the
-- size is the pusher's word: a later push of the data, verified, sets it.
-- So nobody can store a wrong size under an output's hash and make every
-- later push of that output fail on the check constraint. Errors name the
-- blob, never its bytes.
CREATE OR REPLACE FUNCTION put_blob(h text, n bigint, d bytea) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
    IF h IS NULL OR h !~ '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'put_blob: the name of a blob is a SHA-256 in hex, not %', quote_literal(left(coalesce(h, 'NULL'), 80))
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF n IS NULL OR n < 0 THEN
        RAISE EXCEPTION 'put_blob: blob % has no valid size', h USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF d IS NOT NULL AND length(d) <> n THEN
        RAISE EXCEPTION 'put_blob: blob % is said to be % bytes, its data is %', h, n, length(d) USING ERRCODE = 'check_violation';
    END IF;
    IF d IS NOT NULL AND encode(sha256(d), 'hex') <> h THEN
        RAISE EXCEPTION 'put_blob: the data given for blob % does not hash to its name', h USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO blobs (hash, size, data) VALUES (h, n, d)
    ON CONFLICT (hash) DO UPDATE SET data = EXCLUDED.data, size = EXCLUDED.size
    WHERE blobs.data IS NULL AND EXCLUDED.data IS NOT NULL;
END
$$;
REVOKE ALL ON FUNCTION put_blob(text, bigint, bytea) FROM PUBLIC;

-- Search returns each chunk's owner with its key: two roles' rows may share
-- a key.
DROP FUNCTION search_chunks(text, text, text[], text, text, text, integer, integer, float8, real[]);
CREATE FUNCTION search_chunks(q_all text, q_cand text, paths text[], p_session text, p_project text, p_kind text,
                              cap integer, lim integer, boost float8, weights real[])
RETURNS TABLE (key text, owner name, rank float8)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    WITH everything AS (
        SELECT r.rolsuper OR r.rolbypassrls OR pg_has_role(session_user, t.tableowner, 'MEMBER') AS yes
        FROM pg_roles r, pg_tables t
        WHERE r.rolname = session_user AND t.schemaname = current_schema() AND t.tablename = 'chunks'
    ),
    visible AS (SELECT project FROM grants WHERE role = session_user),
    found AS (
        SELECT u.key, u.owner FROM (
            SELECT c.key, c.owner, c.ts_end, c.project FROM chunks c
            WHERE c.tsv @@ to_tsquery('english', q_cand)
              AND (p_session IS NULL OR c.session_id = p_session)
              AND (p_project IS NULL OR c.project = p_project)
              AND (p_kind IS NULL OR c.kind = p_kind)
            UNION
            SELECT c.key, c.owner, c.ts_end, c.project FROM unnest(paths) p JOIN chunks c ON c.files ILIKE p
            WHERE (p_session IS NULL OR c.session_id = p_session)
              AND (p_project IS NULL OR c.project = p_project)
              AND (p_kind IS NULL OR c.kind = p_kind)
        ) u
        WHERE (SELECT yes FROM everything) OR u.project IN (SELECT project FROM visible)
        ORDER BY u.ts_end DESC NULLS LAST LIMIT cap
    )
    SELECT c.key, c.owner, ts_rank(weights, c.tsv, to_tsquery('english', q_all), 1)
        + boost * (SELECT count(*) FROM unnest(paths) p WHERE c.files ILIKE p) AS rank
    FROM found JOIN chunks c ON c.key = found.key AND c.owner = found.owner
    ORDER BY rank DESC, c.key, c.owner LIMIT lim
$$;
REVOKE ALL ON FUNCTION search_chunks(text, text, text[], text, text, text, integer, integer, float8, real[]) FROM PUBLIC;
