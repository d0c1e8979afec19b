package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/logfile"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/team"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var teamCmd = &command{
	name:    "team",
	usage:   "team init | grant ROLE PROJECT | revoke ROLE PROJECT | grants | add-project [NAME] | remove-project | projects | sync [--batch N] [--background] | status  [--json]",
	summary: "the team archive on PostgreSQL: set it up, opt projects in, sync, see where it stands",
	group:   groupArchive,
	long: `What one person's agent learned, found by the whole team (docs/TEAM.md). The server is
team.dsn in your config.toml, or CTXKEEP_TEAM_DSN; the password comes from ~/.pgpass or
PGPASSWORD, never from ctxkeep's files; sslmode is honoured.

The administrator, as the database's owner: init creates or upgrades the schema, its row-level
security and the member role (run it again after an upgrade); grant ROLE PROJECT lets an existing
login role read a team project and push to it, revoke takes that away, grants lists who may read
what.

Each user: add-project [NAME], in a project's folder, opts it in under NAME (default: its git
remote, else its folder's name), so that the same repository on two machines is one team
project; remove-project opts it out; projects lists them. sync pushes, redacted, what those
projects archived since the last sync, each step with what the model saw of its stored outputs
(their views; their whole text only with team.push_outputs), in batches of --batch chunks, each
in one transaction; stopped anywhere, the next one resumes, and nothing is stored twice. With
team.sync_after_session the SessionEnd hook starts sync --background, which skips when a sync is
running, stops after team.sync_timeout and logs its outcome to team/sync.log in the state folder.
status says who you are on the server, what you may read and how far this machine synced.

Search and recall reach the team archive with --team.`,
	examples: []string{
		"CTXKEEP_TEAM_DSN='host=db dbname=team user=admin' ctxkeep team init",
		"ctxkeep team grant alice github.com/acme/api",
		"ctxkeep team add-project",
		"ctxkeep team sync",
		"ctxkeep team status --json",
	},
	raw:   true, // subcommands, each with its flags
	setup: func(*flag.FlagSet) runFunc { return runTeam },
}

// runTeam dispatches the team subcommands.
func runTeam(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		return usageErrorf("team needs a subcommand").withHint("run `ctxkeep help team`")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "init":
		return runTeamInit(ctx, a, rest)
	case "grant", "revoke":
		return runTeamGrant(ctx, a, sub, rest)
	case "grants":
		return runTeamGrants(ctx, a, rest)
	case "add-project":
		return runTeamAddProject(ctx, a, rest)
	case "remove-project":
		return runTeamRemoveProject(ctx, a, rest)
	case "projects":
		return runTeamProjects(ctx, a, rest)
	case "sync":
		return runTeamSync(ctx, a, rest)
	case "status":
		return runTeamStatus(ctx, a, rest)
	}
	return usageErrorf("unknown team subcommand %q", sub).withHint("run `ctxkeep help team`")
}

// teamConfig is the effective configuration, which must name a server.
func (a *app) teamConfig() (*config.Config, error) {
	cfg, _, err := a.config()
	if err != nil {
		return nil, hint(err, "edit the file named above, or unset the variable")
	}
	if cfg.Team.DSN == "" {
		return nil, hint(errors.New("no team archive configured"),
			"set [team] dsn = \"host=… dbname=… user=… sslmode=verify-full\" in %s, or CTXKEEP_TEAM_DSN; the password goes in ~/.pgpass", a.configFiles().User)
	}
	return cfg, nil
}

// openTeam connects to the team archive; migrate is the administrator's
// init. Its errors say what to do.
func (a *app) openTeam(ctx context.Context, migrate bool) (ctxkeep.TeamAdmin, *config.Config, error) {
	cfg, err := a.teamConfig()
	if err != nil {
		return nil, nil, err
	}
	if a.Backends.OpenTeam == nil {
		return nil, nil, errors.New("this ctxkeep was built without the team archive")
	}
	p := a.progress() // a server that accepts and never answers is waited on for seconds: say so
	p.Start("connecting to the team archive", 0)
	db, err := a.Backends.OpenTeam(ctx, cfg.Team.DSN, migrate)
	p.Done()
	if err != nil {
		return nil, nil, teamError(err)
	}
	return db, cfg, nil
}

// teamError adds what to do to the errors users meet. A refusal
// (insufficient privilege, 42501) has several causes, which the server's
// message tells apart: each gets its own hint.
func teamError(err error) error {
	msg := err.Error()
	switch code := ctxkeep.SQLState(err); {
	case errors.Is(err, ctxkeep.ErrTeamSchema), errors.Is(err, ctxkeep.ErrNotMember):
		return err
	case code == "28P01" || code == "28000":
		return hint(err, "put the password in ~/.pgpass (host:port:dbname:user:password, mode 0600) or PGPASSWORD; ctxkeep never stores it")
	case code == "42501" && strings.Contains(msg, "permission denied to create role"):
		return hint(err, "`ctxkeep team init` creates the member role: run it as a role with CREATEROLE (or a superuser) — ALTER ROLE … CREATEROLE, as a superuser")
	case code == "42501" && strings.Contains(msg, "permission denied for database"):
		return hint(err, "`ctxkeep team init` creates the schema: run it as the database's owner, or a role granted CREATE on the database")
	case code == "42501" && strings.Contains(msg, "must be owner of"):
		return hint(err, "`ctxkeep team init` changes the schema: run it as the role that ran it first (the tables' owner), or a superuser")
	case code == "42501" && strings.Contains(msg, "row-level security"):
		return hint(err, "your role is not granted the project named above: the administrator runs `ctxkeep team grant ROLE PROJECT` (`ctxkeep team status` lists what you are granted)")
	case code == "42501" && strings.Contains(msg, "permission denied for"):
		return hint(err, "your role is not a member of the team archive: the administrator runs `ctxkeep team grant ROLE PROJECT`, which makes it one")
	case code == "42501":
		return hint(err, "the server refused: see its message above; `ctxkeep team status` says who you are and what you are granted")
	case code == "3D000":
		return hint(err, "check dbname in team.dsn")
	case errors.Is(err, ctxkeep.ErrUnreachable) && strings.Contains(msg, "did not answer within"):
		return hint(err, "is a PostgreSQL server listening there? check host and port in team.dsn (connect_timeout=N in it sets the wait)")
	case errors.Is(err, ctxkeep.ErrUnreachable):
		return hint(err, "check team.dsn and the network; what was pushed is kept, the next sync catches up")
	}
	return err
}

func runTeamInit(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("team")
	if err := teamNoArgs(a, fs, args); err != nil {
		return err
	}
	db, _, err := a.openTeam(ctx, true)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Init(ctx); err != nil {
		return teamError(err)
	}
	v, _ := db.SchemaVersion(ctx)
	fmt.Fprintf(a.Stdout, "team archive ready: schema %q at version %d, member role %s\n", db.Schema(), v, db.MemberRole())
	fmt.Fprintln(a.Stdout, "next: create each member's login role (createuser NAME), then `ctxkeep team grant NAME PROJECT`")
	return nil
}

func runTeamGrant(ctx context.Context, a *app, sub string, args []string) error {
	fs := newFlagSet("team")
	pos, err := teamParse(a, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("team %s takes ROLE PROJECT", sub).withHint("PROJECT is the team name `ctxkeep team projects` shows, e.g. github.com/acme/api")
	}
	if err := team.ValidName(pos[1]); err != nil {
		return usageErrorf("%v", err)
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if sub == "grant" {
		err = db.Grant(ctx, pos[0], pos[1])
	} else {
		err = db.Revoke(ctx, pos[0], pos[1])
	}
	if err != nil {
		return teamError(err)
	}
	verb := map[string]string{"grant": "may now read and push", "revoke": "may no longer read"}[sub]
	fmt.Fprintf(a.Stdout, "%s %s %s\n", pos[0], verb, pos[1])
	return nil
}

func runTeamGrants(ctx context.Context, a *app, args []string) error {
	asJSON, err := a.onlyJSON(args)
	if err != nil {
		return err
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	gs, err := db.Grants(ctx)
	if err != nil {
		return teamError(err)
	}
	if asJSON {
		return a.printJSON(map[string]any{"grants": gs})
	}
	rows := make([][2]string, len(gs))
	for i, g := range gs {
		rows[i] = [2]string{g.Project, g.Role}
	}
	return a.printPairs([2]string{"PROJECT", "ROLE"}, rows)
}

// onlyJSON parses the arguments of a subcommand that takes --json only.
func (a *app) onlyJSON(args []string) (bool, error) {
	var asJSON bool
	fs := newFlagSet("team")
	fs.BoolVar(&asJSON, "json", false, "print as JSON")
	return asJSON, teamNoArgs(a, fs, args)
}

// teamParse parses a team subcommand's flags as the command table does
// for other commands: --help prints the help, a bad flag is one error.
func teamParse(a *app, fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(a.Stdout, lookup("team"))
		return nil, silentError{code: exitOK}
	}
	if err != nil {
		return nil, flagError(lookup("team"), fs, err)
	}
	return pos, nil
}

// teamNoArgs parses a team subcommand that takes flags only.
func teamNoArgs(a *app, fs *flag.FlagSet, args []string) error {
	pos, err := teamParse(a, fs, args)
	if err != nil {
		return err
	}
	return noArgs("team "+fs.Name(), pos)
}

// printPairs prints a table of two columns.
func (a *app) printPairs(header [2]string, rows [][2]string) error {
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	for _, r := range append([][2]string{header}, rows...) {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}

// teamProjectsFile is where the projects opted in are listed.
func (a *app) teamProjectsFile() (string, error) {
	d, err := a.dirs()
	return filepath.Join(d.Config, "team-projects.json"), err
}

func runTeamAddProject(_ context.Context, a *app, args []string) error {
	fs := newFlagSet("team")
	pos, err := teamParse(a, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("team add-project takes at most one NAME")
	}
	root := a.projectDir()
	if root == "" {
		return errors.New("no project here: run it in the project's folder")
	}
	name := team.DefaultName(root)
	if len(pos) == 1 {
		name = pos[0]
	}
	path, err := a.teamProjectsFile()
	if err != nil {
		return err
	}
	if _, err := team.AddProject(path, team.Project{Root: root, Name: name, Added: a.Now().UTC()}); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "%s joins the team archive as %q: `ctxkeep team sync` pushes its archived sessions (redacted)\n", root, name)
	return nil
}

func runTeamRemoveProject(_ context.Context, a *app, args []string) error {
	fs := newFlagSet("team")
	if err := teamNoArgs(a, fs, args); err != nil {
		return err
	}
	path, err := a.teamProjectsFile()
	if err != nil {
		return err
	}
	root := a.projectDir()
	found, err := team.RemoveProject(path, root)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%s is not in the team archive's projects (`ctxkeep team projects` lists them)", root)
	}
	fmt.Fprintf(a.Stdout, "%s no longer syncs; what it pushed stays in the team archive\n", root)
	return nil
}

func runTeamProjects(_ context.Context, a *app, args []string) error {
	asJSON, err := a.onlyJSON(args)
	if err != nil {
		return err
	}
	path, err := a.teamProjectsFile()
	if err != nil {
		return err
	}
	ps, err := team.Projects(path)
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(map[string]any{"projects": ps})
	}
	if len(ps) == 0 {
		fmt.Fprintln(a.Stdout, "no project syncs to the team archive; `ctxkeep team add-project` in a project's folder adds it")
		return nil
	}
	rows := make([][2]string, len(ps))
	for i, p := range ps {
		rows[i] = [2]string{p.Name, p.Root}
	}
	return a.printPairs([2]string{"TEAM NAME", "FOLDER"}, rows)
}

// teamDir holds the sync's cursors, lock and log (per machine: state).
func (a *app) teamDir() (string, error) {
	d, err := a.dirs()
	return filepath.Join(d.State, "team"), err
}

// runTeamSync pushes what is new. By hand it waits for a sync already
// running; with --background (what SessionEnd starts) it leaves that one
// be, gives up after team.sync_timeout, and logs its outcome to
// team/sync.log instead of printing it.
func runTeamSync(ctx context.Context, a *app, args []string) error {
	var background, asJSON bool
	var batch int
	fs := newFlagSet("team")
	fs.BoolVar(&background, "background", false, "run as SessionEnd starts it: skip if a sync is running, bounded by team.sync_timeout, outcome logged")
	fs.IntVar(&batch, "batch", team.DefaultBatch, "chunks per transaction")
	fs.BoolVar(&asJSON, "json", false, "print what was pushed as JSON")
	if err := teamNoArgs(a, fs, args); err != nil {
		return err
	}
	dir, err := a.teamDir()
	if err != nil {
		return err
	}
	logPath := filepath.Join(dir, "sync.log")
	lock := fsx.Locked
	if background {
		lock = fsx.TryLocked
		if cfg, _, err := a.config(); err == nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, cfg.Team.SyncTimeout)
			defer cancel()
		}
	}
	start := time.Now()
	var res team.Result
	err = lock(filepath.Join(dir, "sync.lock"), func() error {
		res, err = a.teamSync(ctx, batch)
		return err
	})
	if errors.Is(err, fsx.ErrLocked) {
		return nil // the sync already running pushes what this one would
	}
	outcome := fmt.Sprintf("team sync: %d chunk(s) pushed (%d new or changed), %d output(s) (%d with text, %d with what the model saw), %d project(s), in %s",
		res.Chunks, res.Written, res.Outputs, res.Texts, res.Views, res.Projects, time.Since(start).Round(time.Millisecond))
	if err != nil {
		outcome = fmt.Sprintf("team sync failed after %s: %v (what was pushed is kept; the next sync resumes)", outcome, err)
	}
	if lerr := fsx.MkdirPrivate(dir); lerr == nil {
		logfile.Append(logPath, a.Now(), outcome)
	}
	if background {
		return err
	}
	if err != nil {
		return teamError(err)
	}
	if asJSON {
		return a.printJSON(res)
	}
	fmt.Fprintln(a.Stdout, strings.TrimPrefix(outcome, "team sync: "))
	if res.Projects == 0 { // not an error: SessionEnd may start it anywhere
		fmt.Fprintln(a.Stdout, "no project is opted in: `ctxkeep team add-project`, in a project's folder, opts it in")
	}
	return nil
}

// teamSync runs one sync of the projects opted in.
func (a *app) teamSync(ctx context.Context, batch int) (team.Result, error) {
	path, err := a.teamProjectsFile()
	if err != nil {
		return team.Result{}, err
	}
	projects, err := team.Projects(path)
	if err != nil || len(projects) == 0 {
		return team.Result{}, err
	}
	db, cfg, err := a.openTeam(ctx, false)
	if err != nil {
		return team.Result{}, err
	}
	defer db.Close()
	st, err := a.openStore(ctx)
	if err != nil {
		return team.Result{}, err
	}
	id, err := db.Identity(ctx)
	if err != nil {
		return team.Result{}, err
	}
	dir, err := a.teamDir()
	if err != nil {
		return team.Result{}, err
	}
	views := &transcriptViews{st: st, lineMax: cfg.Limits.TranscriptLineBytes}
	return team.Sync(ctx, st, db, team.Options{Projects: projects, PushOutputs: cfg.Team.PushOutputs,
		MaxOutputBytes: cfg.Team.MaxOutputBytes, View: views.view, Batch: batch, Now: a.Now,
		Cursor: filepath.Join(dir, "cursor-"+team.IdentityKey(id)+".json"), Identity: id})
}

// transcriptViews gives a sync what the model saw of each stored output
// in its place: the tool result the session's transcript (or Codex
// rollout) holds, which is the view, or the condensed output, when the
// client applied the replacement. One transcript is kept read at a time:
// a sync meets a session's chunks one after the other.
type transcriptViews struct {
	st       ctxkeep.Local
	lineMax  int64
	sessions map[string]ctxkeep.Session // read on first use
	path     string                     // the transcript results holds
	results  map[string]string          // its tool results by tool_use_id
}

func (v *transcriptViews) view(ctx context.Context, e ctxkeep.Entry) (string, bool) {
	if e.ToolUseID == "" || e.Applied != nil && !*e.Applied {
		// Not applied: the transcript holds the original (or another
		// hook's output), which stays home unless team.push_outputs.
		return "", false
	}
	path := ""
	if cur, ok, err := v.st.Cursor(ctx, e.SessionID); err == nil && ok {
		path = cur.Transcript // the transcript the session was archived from
	}
	if path == "" {
		if v.sessions == nil {
			v.sessions, _ = v.st.Sessions(ctx)
		}
		path = v.sessions[e.SessionID].Transcript // the one its hooks named
	}
	if path == "" {
		return "", false
	}
	if e.AgentID != "" {
		path = proof.SubagentTranscript(path, e.AgentID)
	}
	if path != v.path || v.results == nil {
		v.path, v.results = path, toolResults(path, v.lineMax)
	}
	text, ok := v.results[e.ToolUseID]
	if !ok || e.Chars > 0 && utf8.RuneCountInString(text) >= e.Chars {
		// As long as the original: the replacement did not take (its
		// verdict not checked yet), and the whole text is not pushed.
		return "", false
	}
	return text, true
}

// toolResults reads every tool result of a Claude Code transcript or a
// Codex rollout, as the model got it, by tool_use_id (call_id); a file
// that cannot be read has none.
func toolResults(path string, lineMax int64) map[string]string {
	results := map[string]string{}
	if codex.IsRollout(path) {
		f, _, err := fsx.OpenRegular(path)
		if err != nil {
			return results
		}
		defer f.Close()
		lines := transcript.NewLineReader(f, transcript.ReadLimits{Line: int(lineMax)}, false)
		for {
			line, _, err := lines.Next()
			if id, out, ok := codex.CallOutput(line); ok {
				results[id] = out
			}
			if err != nil {
				return results
			}
		}
	}
	f, err := transcript.ReadFileLimited(path, transcript.Cursor{}, transcript.ReadLimits{Line: int(lineMax)})
	if err != nil && f == nil {
		return results
	}
	calls, _ := transcript.ToolCalls(f.Records)
	for _, c := range calls {
		if c.Result != nil {
			results[c.ID] = c.Result.Text()
		}
	}
	return results
}

type teamStatus struct {
	Role     string            `json:"role"`
	Schema   string            `json:"schema"`
	Version  int               `json:"schema_version"`
	TLS      bool              `json:"tls"`
	Granted  []string          `json:"granted_projects"`
	Visible  ctxkeep.TeamCount `json:"visible"`
	Projects []team.Project    `json:"local_projects"`
	Cursor   map[string]int64  `json:"cursor"`
}

// runTeamStatus says who this user is on the team archive, what they may
// read, what this machine syncs and how far it got.
func runTeamStatus(ctx context.Context, a *app, args []string) error {
	asJSON, err := a.onlyJSON(args)
	if err != nil {
		return err
	}
	db, _, err := a.openTeam(ctx, false)
	if err != nil {
		return err
	}
	defer db.Close()
	var s teamStatus
	s.Schema = db.Schema()
	if s.Role, err = db.Role(ctx); err != nil {
		return teamError(err)
	}
	if s.Version, err = db.SchemaVersion(ctx); err != nil {
		return teamError(err)
	}
	if s.TLS, err = db.TLS(ctx); err != nil {
		return teamError(err)
	}
	if s.Granted, err = db.Projects(ctx); err != nil {
		return teamError(err)
	}
	if s.Visible, err = db.Counts(ctx, ""); err != nil {
		return teamError(err)
	}
	path, err := a.teamProjectsFile()
	if err != nil {
		return err
	}
	if s.Projects, err = team.Projects(path); err != nil {
		return err
	}
	dir, err := a.teamDir()
	if err != nil {
		return err
	}
	id, err := db.Identity(ctx)
	if err != nil {
		return teamError(err)
	}
	cur, err := team.LoadCursor(filepath.Join(dir, "cursor-"+team.IdentityKey(id)+".json"))
	if err != nil {
		return err
	}
	s.Cursor = cur.Projects
	if asJSON {
		return a.printJSON(s)
	}
	fmt.Fprintf(a.Stdout, "connected as %s to %s (schema version %d, TLS %s)\n", s.Role, id, s.Version, map[bool]string{true: "on", false: "off"}[s.TLS])
	fmt.Fprintf(a.Stdout, "granted: %s\n", strings.Join(s.Granted, ", "))
	fmt.Fprintf(a.Stdout, "visible: %d sessions, %d chunks, %d outputs (%d with text)\n", s.Visible.Sessions, s.Visible.Chunks, s.Visible.Entries, s.Visible.Texts)
	for _, p := range s.Projects {
		fmt.Fprintf(a.Stdout, "syncs %s as %q (cursor %d)\n", p.Root, p.Name, cur.Projects[p.CursorKey()])
	}
	if entries, err := logfile.Since(filepath.Join(dir, "sync.log"), time.Time{}, 1); err == nil && len(entries) > 0 {
		fmt.Fprintf(a.Stdout, "last sync: %s %s\n", entries[0].Time.Local().Format("2006-01-02 15:04:05"), entries[0].Message)
	}
	return nil
}
