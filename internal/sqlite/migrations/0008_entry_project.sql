-- Each stored output names its project (internal/project), as its
-- session's chunks do, so that the MCP server, which serves one project,
-- finds only that project's outputs (docs/SECURITY.md). Outputs stored
-- before take the project their session was archived under; one whose
-- session was never archived keeps '' and counts as the project's its
-- session is archived under later, if ever (ProjectEntry).
ALTER TABLE entries ADD COLUMN project TEXT NOT NULL DEFAULT '';
UPDATE entries SET project = coalesce((SELECT c.project FROM chunks c
    WHERE c.session_id = entries.session_id AND c.project != '' ORDER BY c.ts_end DESC LIMIT 1), '');
CREATE INDEX entries_by_project ON entries (project, id);
