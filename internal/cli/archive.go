package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

type archived struct {
	Transcript string `json:"transcript"`
	Session    string `json:"session_id"`
	Project    string `json:"project"`
	Turns      int    `json:"turns"`
	Written    int    `json:"chunks_written"`
	Problems   int    `json:"bad_lines"`
	Error      string `json:"error,omitempty"`
}

// runArchive brings transcripts into the archive: sessions recorded before
// ctxkeep was installed, or another machine's. The hooks archive the
// sessions they see by themselves.
func runArchive(ctx context.Context, a *app, args []string) error {
	var all, asJSON bool
	fs := a.flags("archive")
	fs.BoolVar(&all, "all", false, "archive every session under ~/.claude/projects")
	fs.BoolVar(&asJSON, "json", false, "print what was archived as JSON")
	paths, err := parse(fs, args)
	if err != nil {
		return err
	}
	if all {
		found, err := a.allTranscripts()
		if err != nil {
			return err
		}
		paths = append(paths, found...)
	}
	if len(paths) == 0 {
		return usageErrorf("archive needs transcripts, or --all").withHint("ctxkeep archive ~/.claude/projects/*/*.jsonl")
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	var out []archived
	failed := 0
	for i, path := range paths {
		r := archiveOne(ctx, st, path, func(sofar keep.ArchiveResult) {
			if !asJSON {
				fmt.Fprintf(a.Stderr, "[%d/%d] %s: %d MB read so far…\n", i+1, len(paths), filepath.Base(path), sofar.Read>>20)
			}
		})
		if r.Error != "" {
			failed++
		}
		out = append(out, r)
		if !asJSON {
			fmt.Fprintf(a.Stderr, "[%d/%d] %s\n", i+1, len(paths), r.line())
		}
	}
	if asJSON {
		if err := a.printJSON(map[string]any{"archived": out}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.Stdout, "archived %d transcript(s); search them with `ctxkeep search --all WORDS`\n", len(paths)-failed)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d transcript(s) could not be archived", failed, len(paths))
	}
	return nil
}

func archiveOne(ctx context.Context, st *store.Store, path string, progress func(keep.ArchiveResult)) archived {
	abs, _ := filepath.Abs(path)
	r := archived{Transcript: abs, Session: strings.TrimSuffix(filepath.Base(abs), ".jsonl")}
	r.Project = projectOf(abs)
	res, err := keep.ArchiveAll(ctx, st, keep.Session{ID: r.Session, Project: r.Project, Transcript: abs}, progress)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Turns, r.Written, r.Problems = res.Turns, res.Written, res.Problems
	return r
}

func (r archived) line() string {
	if r.Error != "" {
		return r.Transcript + ": " + r.Error
	}
	return fmt.Sprintf("%s: %d turns, %d chunks written, %d bad lines", r.Session, r.Turns, r.Written, r.Problems)
}

// projectOf is the working directory the session started in, from its
// transcript.
func projectOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := transcript.NewScanner(f, transcript.Cursor{})
	for i := 0; sc.Scan() && i < 200; i++ {
		if cwd := sc.Record().Cwd; cwd != "" {
			return cwd
		}
	}
	return ""
}

// allTranscripts lists the main session transcripts under the client's
// projects folder.
func (a *app) allTranscripts() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(a.projectsDir(), "*", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	return paths, nil
}
