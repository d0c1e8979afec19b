-- The team archive: what several people's agents learned, in one database
-- (docs/TEAM.md). Every table lives in the schema ctxkeep is opened with
-- (search_path); pg_trgm lives wherever the database has it.
--
-- Rows carry their owner (the role that pushed them) and their project (the
-- team's name for it). Row-level security lets a role read only the
-- projects it is granted, and write only its own rows in them; the owner of
-- the tables (the administrator who ran `ctxkeep team init`) is not
-- restricted, which is how the conformance suite uses the schema as a
-- store.

-- Projects of the team, by the name every member's clone shares.
CREATE TABLE projects (
    name       text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Which role may read (and push to) which project.
CREATE TABLE grants (
    role    name NOT NULL,
    project text NOT NULL REFERENCES projects (name) ON DELETE CASCADE,
    PRIMARY KEY (role, project)
);

-- Sessions as pushed: whose, which project, when.
CREATE TABLE sessions (
    id         text COLLATE "C" PRIMARY KEY,
    owner      name NOT NULL DEFAULT current_user,
    project    text NOT NULL DEFAULT '',
    first_seen timestamptz,
    last_seen  timestamptz,
    chunks     integer NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_project ON sessions (project, last_seen);

-- Content-addressed outputs. data is NULL when its text stays on its
-- author's machine (team.push_outputs off, or over team.max_output_bytes):
-- the entry is there, its text is not. Whatever is stored hashes to its
-- name: the database checks it.
CREATE TABLE blobs (
    hash       text COLLATE "C" PRIMARY KEY,
    size       bigint NOT NULL,
    data       bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (data IS NULL OR (length(data) = size AND encode(sha256(data), 'hex') = hash))
);

-- Tool outputs swapped out of a context (ctxkeep.Entry).
CREATE TABLE entries (
    id           text COLLATE "C" PRIMARY KEY,
    owner        name NOT NULL DEFAULT current_user,
    project      text NOT NULL DEFAULT '',
    session_id   text NOT NULL,
    tool_use_id  text NOT NULL DEFAULT '',
    agent_id     text NOT NULL DEFAULT '',
    tool         text NOT NULL,
    input        text NOT NULL DEFAULT '',
    hash         text COLLATE "C" NOT NULL REFERENCES blobs (hash),
    chars        integer NOT NULL,
    lines        integer NOT NULL,
    view_chars   integer NOT NULL,
    exit_code    integer,
    failures     integer NOT NULL DEFAULT 0,
    summary      text NOT NULL DEFAULT '',
    copy_path    text NOT NULL DEFAULT '',
    cwd          text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_access  timestamptz,
    access_count integer NOT NULL DEFAULT 0,
    pin_level    text NOT NULL DEFAULT 'none',
    pin_reason   text NOT NULL DEFAULT ''
);
CREATE INDEX entries_by_session ON entries (session_id, created_at);
CREATE INDEX entries_by_hash ON entries (hash);

-- The archive (ctxkeep.Chunk). tsv weighs the prompt 4 (A), the files 3
-- (B), the summary 2 (C) and the body with its outputs 1 (D), as the local
-- index does; files also has a trigram index, for paths and identifiers.
-- internal/postgres/chunks.go holds every statement on this table.
CREATE TABLE chunks (
    key        text COLLATE "C" PRIMARY KEY,
    owner      name NOT NULL DEFAULT current_user,
    session_id text COLLATE "C" NOT NULL,
    project    text NOT NULL DEFAULT '',
    kind       text NOT NULL,
    agent      text NOT NULL DEFAULT '',
    turn       integer NOT NULL,
    ts_start   timestamptz,
    ts_end     timestamptz,
    prompt     text NOT NULL DEFAULT '',
    summary    text NOT NULL DEFAULT '',
    body       text NOT NULL,
    body_hash  text NOT NULL,
    meta       jsonb NOT NULL DEFAULT '{}',
    files      text NOT NULL DEFAULT '',
    tsv        tsvector NOT NULL,
    pushed_at  timestamptz NOT NULL DEFAULT now()
);
-- The key is made from (session, kind, turn) (archive.ChunkKey), so it is
-- the one unique index: a second one would make two concurrent upserts of
-- the same chunk fail on it instead of meeting on the key.
CREATE INDEX chunks_by_session ON chunks (session_id, turn);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
-- Search asks the planner how many chunks each word of a query matches
-- (chunks.go): a longer list of common words makes the estimates of the
-- others sharper.
ALTER TABLE chunks ALTER COLUMN tsv SET STATISTICS 1000;
-- A vector barely compresses (measured: 51 MB with lz4, 52 MB without, for
-- 20,000 chunks) and search reads hundreds of them: uncompressed, reading
-- one costs a quarter of what pglz's decompression does.
ALTER TABLE chunks ALTER COLUMN tsv SET STORAGE EXTERNAL;
CREATE INDEX chunks_by_project ON chunks (project, ts_end);
DO $$
DECLARE s text;
BEGIN
    SELECT n.nspname INTO s FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    EXECUTE format('CREATE INDEX chunks_files_trgm ON chunks USING gin (files %I.gin_trgm_ops)', s);
END $$;

-- How far each session's transcript was archived (the store's cursor; sync
-- does not push it).
CREATE TABLE archive_cursors (
    session_id text PRIMARY KEY,
    transcript text NOT NULL,
    "offset"   bigint NOT NULL,
    line       integer NOT NULL,
    turn       integer NOT NULL,
    usage      jsonb NOT NULL DEFAULT '{}'
);

-- Summaries of completed tasks (the store's; sync does not push them).
CREATE TABLE cold_tasks (
    session_id text NOT NULL,
    task_id    text NOT NULL,
    subject    text NOT NULL,
    turn_from  integer NOT NULL,
    turn_to    integer NOT NULL,
    summary    text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (session_id, task_id)
);

-- Blobs are written through this function only: a member cannot see the
-- blobs of projects it is not granted, yet the same output may already be
-- there, pushed by someone else (with or without its text). It takes the
-- row's lock, so that a concurrent removal of an unreferenced blob cannot
-- delete what a new entry is about to refer to.
CREATE FUNCTION put_blob(h text, n bigint, d bytea) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
    INSERT INTO blobs (hash, size, data) VALUES (h, n, d)
    ON CONFLICT (hash) DO UPDATE SET data = EXCLUDED.data
    WHERE blobs.data IS NULL AND EXCLUDED.data IS NOT NULL
$$;
REVOKE ALL ON FUNCTION put_blob(text, bigint, bytea) FROM PUBLIC;

-- Search. Row-level security would keep PostgreSQL from using the
-- full-text and trigram indexes for a member (their operators are not
-- leakproof, so they may only run after the policy's filter: a scan of
-- every row the role can read). So search runs as the tables' owner and
-- applies the grants itself, to the role that logged in (session_user);
-- the owner, a superuser or a role that bypasses row-level security sees
-- every project, as it does in the tables. It ranks at most cap
-- candidates, the newest, and returns the best lim keys (chunks.go).
CREATE FUNCTION search_chunks(q_all text, q_cand text, paths text[], p_session text, p_project text, p_kind text,
                              cap integer, lim integer, boost float8, weights real[])
RETURNS TABLE (key text, rank float8)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    WITH everything AS (
        SELECT r.rolsuper OR r.rolbypassrls OR pg_has_role(session_user, t.tableowner, 'MEMBER') AS yes
        FROM pg_roles r, pg_tables t
        WHERE r.rolname = session_user AND t.schemaname = current_schema() AND t.tablename = 'chunks'
    ),
    visible AS (SELECT project FROM grants WHERE role = session_user),
    found AS (
        SELECT u.key FROM (
            SELECT c.key, c.ts_end, c.project FROM chunks c
            WHERE c.tsv @@ to_tsquery('english', q_cand)
              AND (p_session IS NULL OR c.session_id = p_session)
              AND (p_project IS NULL OR c.project = p_project)
              AND (p_kind IS NULL OR c.kind = p_kind)
            UNION
            SELECT c.key, c.ts_end, c.project FROM unnest(paths) p JOIN chunks c ON c.files ILIKE p
            WHERE (p_session IS NULL OR c.session_id = p_session)
              AND (p_project IS NULL OR c.project = p_project)
              AND (p_kind IS NULL OR c.kind = p_kind)
        ) u
        WHERE (SELECT yes FROM everything) OR u.project IN (SELECT project FROM visible)
        ORDER BY u.ts_end DESC NULLS LAST LIMIT cap
    )
    SELECT c.key, ts_rank(weights, c.tsv, to_tsquery('english', q_all), 1)
        + boost * (SELECT count(*) FROM unnest(paths) p WHERE c.files ILIKE p) AS rank
    FROM found JOIN chunks c ON c.key = found.key
    ORDER BY rank DESC, c.key LIMIT lim
$$;
REVOKE ALL ON FUNCTION search_chunks(text, text, text[], text, text, text, integer, integer, float8, real[]) FROM PUBLIC;

-- Row-level security: a role reads the projects it is granted, and writes
-- only its own rows there.
ALTER TABLE grants ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON grants FOR SELECT USING (role = current_user);

ALTER TABLE projects ENABLE ROW LEVEL SECURITY;
CREATE POLICY granted ON projects FOR SELECT
    USING (name IN (SELECT project FROM grants WHERE role = current_user));

ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['sessions', 'entries', 'chunks'] LOOP
        EXECUTE format('CREATE POLICY read ON %I FOR SELECT
            USING (project IN (SELECT project FROM grants WHERE role = current_user))', t);
        EXECUTE format('CREATE POLICY push ON %I FOR INSERT
            WITH CHECK (owner = current_user AND project IN (SELECT project FROM grants WHERE role = current_user))', t);
        EXECUTE format('CREATE POLICY repush ON %I FOR UPDATE
            USING (owner = current_user)
            WITH CHECK (owner = current_user AND project IN (SELECT project FROM grants WHERE role = current_user))', t);
    END LOOP;
END $$;

ALTER TABLE blobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY referenced ON blobs FOR SELECT
    USING (EXISTS (SELECT 1 FROM entries e WHERE e.hash = blobs.hash));
