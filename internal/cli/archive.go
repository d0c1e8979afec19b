package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/project"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var archiveCmd = &command{
	name:    "archive",
	usage:   "archive [TRANSCRIPT.jsonl ...] [--all] [--json]",
	summary: "add sessions to the archive (the hooks archive the ones they see)",
	group:   groupArchive,
	long: `Adds transcripts to the archive, so that ` + "`ctxkeep search`" + ` and ` + "`ctxkeep recall`" + ` find them: sessions
from before ctxkeep was installed, or another machine's. --all takes every session transcript
under ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects), every Codex CLI rollout under
$CODEX_HOME/sessions (default ~/.codex) and every Gemini CLI chat under ~/.gemini/tmp. The
session id is the file's name, the project the first working directory it records; a Codex
rollout says both on its first line (the project is the git root of that directory), a Gemini
CLI chat its id on its first line and its workspace in its session context. Archiving a
transcript again writes only what changed. A file none of whose lines is a conversation's
(neither a transcript, a rollout nor a chat) is refused. Exit status 1 if any transcript could
not be archived (the others are).`,
	examples: []string{"ctxkeep archive --all", "ctxkeep archive ~/old-laptop/projects/*/*.jsonl"},
	setup: func(fs *flag.FlagSet) runFunc {
		o := &archiveOptions{}
		fs.BoolVar(&o.all, "all", false, "archive every session transcript under ~/.claude/projects and $CODEX_HOME/sessions")
		fs.BoolVar(&o.json, "json", false, "print what was archived as JSON")
		return o.run
	},
}

type archiveOptions struct{ all, json bool }

type archived struct {
	Transcript string `json:"transcript"`
	Session    string `json:"session_id"`
	Project    string `json:"project"`
	Agent      string `json:"agent"` // the session's client: claude-code, codex, gemini
	Turns      int    `json:"turns"`
	Written    int    `json:"chunks_written"`
	Problems   int    `json:"bad_lines"`
	Error      string `json:"error,omitempty"`
}

// archiveReport is `ctxkeep archive --json`.
type archiveReport struct {
	Archived []archived `json:"archived"`
	Failed   int        `json:"failed"`
}

func (o *archiveOptions) run(ctx context.Context, a *app, paths []string) error {
	if len(paths) == 0 && !o.all {
		return usageErrorf("archive needs transcripts, or --all").withHint("ctxkeep archive ~/.claude/projects/*/*.jsonl")
	}
	if o.all {
		found, _ := filepath.Glob(filepath.Join(a.projectsDir(), "*", "*.jsonl"))
		rollouts, err := a.codexTranscripts()
		if err != nil {
			return err
		}
		found = append(found, rollouts...)
		chats, err := a.geminiTranscripts()
		if err != nil {
			return err
		}
		found = append(found, chats...)
		if len(found) == 0 && len(paths) == 0 {
			if o.json {
				return a.printJSON(archiveReport{Archived: []archived{}})
			}
			fmt.Fprintf(a.Stdout, "nothing to archive: no session transcript under %s\n", a.projectsDir())
			return nil
		}
		paths = append(paths, found...)
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	r := archiveAll(ctx, a, st, paths)
	if err := ctx.Err(); err != nil {
		return err // interrupted: what was archived stays archived
	}
	if o.json {
		if err := a.printJSON(r); err != nil {
			return err
		}
	} else {
		r.print(a)
	}
	if r.Failed > 0 {
		if o.json {
			return silentError{code: exitError} // the document says which
		}
		return fmt.Errorf("%d of %d transcript(s) could not be archived", r.Failed, len(paths))
	}
	return nil
}

func archiveAll(ctx context.Context, a *app, st ctxkeep.Local, paths []string) archiveReport {
	r := archiveReport{Archived: []archived{}}
	p := a.progress()
	defer p.Done()
	p.Start("archiving transcripts", int64(len(paths)))
	for _, path := range paths {
		if ctx.Err() != nil {
			break
		}
		one := archiveOne(ctx, st, path)
		if one.Error != "" {
			r.Failed++
		}
		r.Archived = append(r.Archived, one)
		p.Add(1)
	}
	return r
}

func (r archiveReport) print(a *app) {
	turns, written := 0, 0
	for _, one := range r.Archived {
		if one.Error != "" {
			fmt.Fprintf(a.Stderr, "ctxkeep: %s: %s\n", one.Transcript, one.Error)
			continue
		}
		turns, written = turns+one.Turns, written+one.Written
	}
	fmt.Fprintf(a.Stdout, "archived %d transcript(s): %s, %d chunk(s) written (unchanged ones are skipped)\n",
		len(r.Archived)-r.Failed, text.Plural(turns, "turn"), written)
	a.tip("search them with `ctxkeep search --all WORDS`")
}

func archiveOne(ctx context.Context, st ctxkeep.Local, path string) archived {
	abs, _ := filepath.Abs(path)
	if r, ok := archiveCodex(ctx, st, abs); ok {
		return r
	}
	if r, ok := archiveGemini(ctx, st, abs); ok {
		return r
	}
	r := archived{Transcript: abs, Session: sessionOf(abs), Agent: ctxkeep.AgentClaudeCode}
	if err := checkTranscript(abs); err != nil {
		r.Error = err.Error()
		return r
	}
	r.Project = projectOf(abs)
	res, err := keep.ArchiveAll(ctx, st, keep.Session{ID: r.Session, Project: r.Project, Transcript: abs}, nil)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Turns, r.Written, r.Problems = res.Turns, res.Written, res.Problems
	return r
}

// checkTranscript refuses a file that is not a conversation, as purge and
// replay do: one none of whose lines is a Claude Code transcript record of
// a session (a Codex rollout is told apart before).
func checkTranscript(path string) error {
	switch info, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no such file")
	case err == nil && info.IsDir():
		return fmt.Errorf("a folder, not a transcript (ctxkeep archive FOLDER/*.jsonl)")
	case err == nil && !info.Mode().IsRegular():
		return fmt.Errorf("not a regular file")
	}
	f, _, err := fsx.OpenRegular(path) // a FIFO must not hang
	if err != nil {
		return err
	}
	defer f.Close()
	sc := transcript.NewScanner(f, transcript.Cursor{})
	lines := 0
	for sc.Scan() {
		lines++
		if rec := sc.Record(); rec.SessionID != "" || rec.Message != nil {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	lines += len(sc.Problems())
	return fmt.Errorf("not a Claude Code transcript nor a Codex rollout: none of its %d line(s) is a conversation's; nothing was archived from it", lines)
}

// projectOf is the project of the working directory the session started
// in, from its transcript, as the hooks compute it (internal/project): the
// MCP server and search find the session in the project it belongs to.
func projectOf(path string) string {
	f, _, err := fsx.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := transcript.NewScanner(f, transcript.Cursor{})
	for i := 0; sc.Scan() && i < 200; i++ {
		if cwd := sc.Record().Cwd; cwd != "" {
			return project.Root("", cwd)
		}
	}
	return ""
}
