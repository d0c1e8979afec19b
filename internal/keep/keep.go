package keep

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// Options tune what the blocks hold.
type Options struct {
	PreserveBudget   int           // the preservation block (the client cuts at 10,000)
	RestoreBudget    int           // the restore block (the client inlines up to 10,000)
	Relevant         int           // earlier turns to restore
	GitTimeout       time.Duration // git diff --stat is skipped past it
	InstructionsFile string        // the user's compaction instructions; DefaultInstructions when missing
	IsCheck          func(command string) bool
	Now              time.Time
	Retrieval        swap.Retrieval // how the blocks say to get stored content back
}

// DefaultInstructions are the compaction instructions ctxkeep uses until
// the user writes their own file (install writes this text there to start
// from).
//
//go:embed default-instructions.md
var DefaultInstructions string

// InstructionsFileName is the user's compaction instructions file, in
// ctxkeep's config folder.
const InstructionsFileName = "compact-instructions.md"

// State archives the session and folds its working state. The chunks it
// returns have no bodies (ChunkHeads): a long session's outputs are not
// read to fold its state.
func State(ctx context.Context, st ctxkeep.Store, s Session, isCheck func(string) bool) (archive.State, []ctxkeep.Chunk, ArchiveResult, error) {
	res, err := Archive(ctx, st, s)
	if err != nil {
		return archive.State{}, nil, res, err
	}
	chunks, err := st.ChunkHeads(ctx, s.ID)
	if err != nil {
		return archive.State{}, nil, res, err
	}
	return archive.Fold(s.ID, chunks, isCheck), chunks, res, nil
}

// Preserve archives what is new and returns the preservation block.
func Preserve(ctx context.Context, st ctxkeep.Store, s Session, trigger string, o Options) (string, error) {
	state, _, _, err := State(ctx, st, s, o.IsCheck)
	if err != nil {
		return "", err
	}
	cold, err := st.ColdTasks(ctx, s.ID)
	if err != nil {
		return "", err
	}
	return PreservationBlock(PreservationInput{
		State: state, Cold: cold, GitDiffStat: gitDiffStat(ctx, s.Project, o.GitTimeout),
		Instructions: instructions(o.InstructionsFile), Trigger: trigger, Budget: o.PreserveBudget, Retrieval: o.Retrieval,
	}), nil
}

// lastSteps is how many of the latest steps the restore block walks
// through.
const lastSteps = 12

// Restore archives what is new (the client's summary included) and returns
// the restore block.
func Restore(ctx context.Context, st ctxkeep.Store, s Session, o Options) (string, error) {
	in, err := restoreInput(ctx, st, s, o)
	if err != nil {
		return "", err
	}
	return RestoreBlock(in), nil
}

// restoreInput archives what is new and gathers what the restore block is
// made of.
func restoreInput(ctx context.Context, st ctxkeep.Store, s Session, o Options) (RestoreInput, error) {
	state, chunks, _, err := State(ctx, st, s, o.IsCheck)
	if err != nil {
		return RestoreInput{}, err
	}
	cold, err := st.ColdTasks(ctx, s.ID)
	if err != nil {
		return RestoreInput{}, err
	}
	inv, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: s.ID})
	if err != nil {
		return RestoreInput{}, err
	}
	last, err := withBodies(ctx, st, latestSteps(chunks, lastSteps))
	if err != nil {
		return RestoreInput{}, err
	}
	summary, err := latestSummary(ctx, st, chunks)
	if err != nil {
		return RestoreInput{}, err
	}
	rel, err := Relevant(ctx, st, s, state, last, o)
	if err != nil {
		return RestoreInput{}, err
	}
	return RestoreInput{State: state, Last: last, Cold: cold, Inventory: inv, Relevant: rel, Budget: o.RestoreBudget,
		Summary: summary, Project: s.Project, Session: s.ID, Retrieval: o.Retrieval}, nil
}

// latestSummary is the text of the session's latest compaction summary,
// when the transcript holds it already (2.1.330 writes it only after
// SessionStart(compact): see hook.noteWhatTheSummaryLacks), or "".
func latestSummary(ctx context.Context, st ctxkeep.ArchiveIndex, heads []ctxkeep.Chunk) (string, error) {
	for i := len(heads) - 1; i >= 0; i-- {
		if heads[i].Kind == ctxkeep.KindSummary {
			c, err := st.Chunk(ctx, heads[i].Key)
			return c.Body, err
		}
	}
	return "", nil
}

// withBodies reads the bodies of a few chunks known by their heads.
func withBodies(ctx context.Context, st ctxkeep.ArchiveIndex, heads []ctxkeep.Chunk) ([]ctxkeep.Chunk, error) {
	out := make([]ctxkeep.Chunk, len(heads))
	for i, h := range heads {
		c, err := st.Chunk(ctx, h.Key)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// Relevant finds the archived steps of the project most relevant to the
// session's latest requests, leaving out the steps the restore block
// already walks through.
func Relevant(ctx context.Context, st ctxkeep.Store, s Session, state archive.State, last []ctxkeep.Chunk, o Options) ([]search.Result, error) {
	if o.Relevant <= 0 || len(state.UserMessages) == 0 {
		return nil, nil
	}
	var query []string
	for _, m := range state.UserMessages[max(0, len(state.UserMessages)-3):] {
		query = append(query, m.Text)
	}
	skip := map[string]bool{}
	for _, c := range last {
		skip[c.Key] = true
	}
	rs, err := search.Search(ctx, st, search.Query{Text: strings.Join(query, " "), Project: s.Project, Conversation: true,
		Limit: o.Relevant, Skip: skip}, search.Signals{Now: o.Now, Files: currentFiles(state)})
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return nil, nil
	}
	return rs, err
}

// currentFiles are the files the session touched last.
func currentFiles(s archive.State) []string {
	var out []string
	for i := len(s.Files) - 1; i >= 0 && len(out) < 10; i-- {
		out = append(out, s.Files[i].Path)
	}
	return out
}

// latestSteps are the last n steps (or whole turns) of chunks, oldest
// first.
func latestSteps(chunks []ctxkeep.Chunk, n int) []ctxkeep.Chunk {
	var steps []ctxkeep.Chunk
	for _, c := range chunks {
		if c.Conversation() {
			steps = append(steps, c)
		}
	}
	return steps[max(0, len(steps)-n):]
}

// UpdateCold summarises the session's tasks that went cold, at turns that
// are a multiple of archive.ColdEveryTurns and once the context is
// archive.ColdAtPercent of the way to compaction (percent). A task is
// summarised once: running it again adds nothing.
func UpdateCold(ctx context.Context, st ctxkeep.Store, s Session, turns int, percent float64, isCheck func(string) bool, now time.Time) (int, error) {
	if turns == 0 || turns%archive.ColdEveryTurns != 0 || percent < archive.ColdAtPercent {
		return 0, nil
	}
	chunks, err := recentBodies(ctx, st, s.ID, turns-archive.ColdAfterTurns)
	if err != nil {
		return 0, err
	}
	have, err := st.ColdTasks(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	done := map[string]bool{}
	for _, c := range have {
		done[c.TaskID] = true
	}
	fresh := archive.ColdTasks(archive.Fold(s.ID, chunks, isCheck), chunks, turns, done)
	if len(fresh) == 0 {
		return 0, nil
	}
	return len(fresh), st.AddColdTasks(ctx, s.ID, fresh, now)
}

// recentBodies are a session's chunks, with their bodies only from turn
// from on: what cold tasks look for mentions in.
func recentBodies(ctx context.Context, st ctxkeep.ArchiveIndex, session string, from int) ([]ctxkeep.Chunk, error) {
	heads, err := st.ChunkHeads(ctx, session)
	if err != nil || len(heads) == 0 {
		return heads, err
	}
	recent, err := st.TurnRange(ctx, session, max(from, 1), heads[len(heads)-1].Turn)
	if err != nil {
		return nil, err
	}
	body := make(map[string]string, len(recent))
	for _, c := range recent {
		body[c.Key] = c.Body
	}
	for i := range heads {
		heads[i].Body = body[heads[i].Key]
	}
	return heads, nil
}

// gitDiffStat is `git diff --stat HEAD` of the project, its last lines,
// or "" when there is no repository or git takes too long.
func gitDiffStat(ctx context.Context, dir string, timeout time.Duration) string {
	if dir == "" || timeout <= 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The repository is input: its .git/config could name a program
	// (core.fsmonitor) for git to run; ctxkeep asks for none.
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-C", dir, "diff", "--stat", "--no-ext-diff", "--no-textconv", "HEAD")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

func instructions(path string) string {
	if path == "" {
		return DefaultInstructions
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultInstructions
	}
	if err != nil {
		return DefaultInstructions
	}
	return string(data)
}
