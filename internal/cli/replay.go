package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/replay"
	"github.com/ctxkeep/ctxkeep/internal/sample"
)

// runReplay runs recorded sessions through the swap policy and reports what
// would have entered the context with ctxkeep: nothing is stored.
func runReplay(_ context.Context, a *app, args []string) error {
	var asJSON, views, useSample bool
	fs := a.flags("replay")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fs.BoolVar(&views, "views", false, "also print every view the model would have seen")
	fs.BoolVar(&useSample, "sample", false, "replay the built-in sample session ("+sample.Source+")")
	paths, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 && !useSample {
		latest, err := a.latestTranscript()
		switch {
		case errors.Is(err, errNoSession):
			useSample = true
			fmt.Fprintf(a.Stderr, "ctxkeep: no Claude Code session here yet; replaying the built-in sample, %s\n", sample.Source)
		case err != nil:
			return err
		default:
			paths = []string{latest}
		}
	}
	if useSample {
		tmp, err := os.MkdirTemp("", "ctxkeep-sample-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		path, err := sample.WriteTo(tmp)
		if err != nil {
			return err
		}
		paths = append(paths, path)
	}
	cfg, _, err := a.config()
	if err != nil {
		return err
	}
	r, err := replay.Files(paths, cfg)
	if err != nil {
		return err
	}
	if useSample {
		r.Transcripts[len(r.Transcripts)-1] = "built-in sample " + sample.Name + ", " + sample.Source
	}
	if asJSON {
		return a.printJSON(r)
	}
	if views {
		for _, v := range r.Views {
			fmt.Fprintf(a.Stdout, "── %s %s (%s) ──\n%s\n", v.Tool, v.ToolUseID, filepath.Base(v.Transcript), v.View)
		}
	}
	printReplay(a, r)
	return nil
}

func printReplay(a *app, r replay.Report) {
	w := a.Stdout
	fmt.Fprintf(w, "replayed %d transcript(s), %d tool results", len(r.Transcripts), r.Total.Calls)
	if len(r.Transcripts) == 1 {
		fmt.Fprintf(w, ": %s", r.Transcripts[0])
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TOOL\tRESULTS\tSWAPPED\tCONDENSED\tCHARS BEFORE\t~TOKENS\tCHARS AFTER\t~TOKENS\tREMAINS\t")
	for _, t := range append(r.ByTool, r.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f%%\t\n", t.Tool, t.Calls, t.Swapped, t.Condensed,
			t.CharsBefore, t.TokensBefore(), t.CharsAfter, t.TokensAfter(), 100*t.Ratio())
	}
	tw.Flush()
	fmt.Fprintf(w, "\nWith ctxkeep, %.1f%% of the tool output would have entered the context (~%d tokens kept out).\n",
		100*r.Total.Ratio(), r.Total.TokensBefore()-r.Total.TokensAfter())
	if r.Total.SwappedChars > 0 {
		fmt.Fprintf(w, "The %d outputs swapped out: %d characters, replaced by %d characters of views (%.1f%%).\n",
			r.Total.Swapped, r.Total.SwappedChars, r.Total.ViewChars, 100*float64(r.Total.ViewChars)/float64(r.Total.SwappedChars))
	}
	if r.Total.CondensedChars > 0 {
		fmt.Fprintf(w, "The %d outputs condensed: %d characters, down to %d (%.1f%%), every failure with its causes kept.\n",
			r.Total.Condensed, r.Total.CondensedChars, r.Total.CondensedTo, 100*float64(r.Total.CondensedTo)/float64(r.Total.CondensedChars))
	}
	if r.Total.Pointers > 0 {
		fmt.Fprintf(w, "%d unchanged re-read(s) would have been answered by a pointer to the earlier Read.\n", r.Total.Pointers)
	}
	if r.Total.Wrapped > 0 {
		fmt.Fprintf(w, "%d failed command(s) would have run through the wrapper and been kept whole.\n", r.Total.Wrapped)
	}
	fmt.Fprintf(w, "Failure lines in the outputs swapped out or condensed: %d; shown: %d (the rest counted, all of them at `ctxkeep show ID --failures`).\n",
		r.Total.FailureLines, r.Total.FailureShown)
	if r.BadLines > 0 {
		fmt.Fprintf(w, "%d transcript line(s) could not be read and were skipped.\n", r.BadLines)
	}
}

// latestTranscript is the most recently written main session transcript
// under the client's projects folder.
func (a *app) latestTranscript() (string, error) {
	root := a.projectsDir()
	var best string
	var bestTime time.Time
	projects, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, p := range projects {
		files, _ := filepath.Glob(filepath.Join(root, p.Name(), "*.jsonl"))
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && st.ModTime().After(bestTime) && !strings.Contains(filepath.Base(f), "agent-") {
				best, bestTime = f, st.ModTime()
			}
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w under %s", errNoSession, root)
	}
	return best, nil
}

var errNoSession = errors.New("no Claude Code session found")

// projectsDir is the client's folder of session transcripts.
func (a *app) projectsDir() string {
	if dir := a.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "projects")
	}
	return filepath.Join(a.Getenv("HOME"), ".claude", "projects")
}
