// Package replay runs the tool results of recorded Claude Code sessions
// and Codex rollouts through the swap policy, without storing anything,
// and reports what would have entered the context before and after: the
// figure that says whether ctxkeep is worth installing, measured on the
// user's own sessions.
package replay

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Tally counts tool results and their characters.
type Tally struct {
	Tool         string `json:"tool"`
	Calls        int    `json:"calls"`         // tool results seen
	Swapped      int    `json:"swapped"`       // replaced by a view
	Condensed    int    `json:"condensed"`     // replaced by the output with its noise folded
	Pointers     int    `json:"pointers"`      // unchanged re-reads answered by a pointer to the earlier Read
	Wrapped      int    `json:"wrapped"`       // failed commands the wrapper would have captured (swapped or condensed)
	CharsBefore  int    `json:"chars_before"`  // what entered the context
	CharsAfter   int    `json:"chars_after"`   // what would have with ctxkeep
	FailureLines int    `json:"failure_lines"` // in the swapped and condensed originals
	FailureShown int    `json:"failure_lines_shown"`
	SwappedChars int    `json:"swapped_chars"` // characters of the outputs swapped out…
	ViewChars    int    `json:"view_chars"`    // …and of their views
	// CondensedChars are the characters of the outputs condensed…
	CondensedChars int `json:"condensed_chars"`
	// …and CondensedTo those of what the model would have seen instead.
	CondensedTo int `json:"condensed_to_chars"`
}

// TokensBefore and TokensAfter estimate tokens at four characters each.
func (t Tally) TokensBefore() int { return (t.CharsBefore + 3) / 4 }

// TokensAfter estimates the tokens that would have entered the context.
func (t Tally) TokensAfter() int { return (t.CharsAfter + 3) / 4 }

// Ratio is after / before.
func (t Tally) Ratio() float64 {
	if t.CharsBefore == 0 {
		return 1
	}
	return float64(t.CharsAfter) / float64(t.CharsBefore)
}

// saw counts a tool result of before characters, which stays whole
// unless tally replaces it.
func (t *Tally) saw(before int) {
	t.Calls++
	t.CharsBefore += before
	t.CharsAfter += before
}

func (t *Tally) add(o Tally) {
	t.Calls += o.Calls
	t.Swapped += o.Swapped
	t.Condensed += o.Condensed
	t.Pointers += o.Pointers
	t.Wrapped += o.Wrapped
	t.CondensedChars += o.CondensedChars
	t.CondensedTo += o.CondensedTo
	t.CharsBefore += o.CharsBefore
	t.CharsAfter += o.CharsAfter
	t.FailureLines += o.FailureLines
	t.FailureShown += o.FailureShown
	t.SwappedChars += o.SwappedChars
	t.ViewChars += o.ViewChars
}

// Report is the outcome of a replay.
type Report struct {
	Transcripts []string `json:"transcripts"`
	ByTool      []Tally  `json:"by_tool"`
	Total       Tally    `json:"total"`
	BadLines    int      `json:"bad_lines"` // transcript lines that could not be read (skipped)
	Views       []View   `json:"-"`         // every view rendered, for tests and --views
	// Replaced counts the outputs the transcript holds as ctxkeep
	// replaced them while the session ran (it holds the replacement: the
	// client applied it), replayed from their stored originals.
	Replaced int `json:"replaced_when_recorded"`
	// NotApplied counts the replacements ctxkeep returned that the
	// client did not apply: the transcript holds what the model got
	// instead (the original), and they count as it holds them.
	NotApplied int `json:"not_applied_when_recorded,omitempty"`
	// Unavailable counts the outputs ctxkeep replaced whose originals the
	// store could not give back (pruned since): they count as the
	// transcript holds them, their views.
	Unavailable int `json:"originals_unavailable,omitempty"`
	// StoreError says why the store of originals could not be read, if
	// it could not: the replaced outputs then count as their views.
	StoreError string `json:"store_error,omitempty"`

	originals Originals
}

// View is one output the policy replaced, with what the model would
// have seen instead.
type View struct {
	Transcript string
	ToolUseID  string
	Tool       string
	Input      string // the command, the path, the pattern
	Exit       int    // the exit status, or swap.NoExit
	Kind       string // swap.KindView, swap.KindCondensed, swap.KindPointer
	Original   string
	View       string
	Failures   int
}

// Originals gives back the outputs ctxkeep replaced while a session ran:
// the transcript of such a session holds what the model got (a view, a
// condensed output, a pointer), and replay counts from the original, as
// for a session recorded without it — when the transcript shows the
// replacement was applied (internal/proof): a replacement the client did
// not apply left the original in the transcript.
type Originals interface {
	// Replacement is the sha256 (proof.Sum) of the text a PostToolUse
	// reply of ctxkeep's put in place of the output of the call toolUseID
	// of session, if there was one. (An output the wrapper captured is
	// not one: the client would have cut it, and replay counts what its
	// transcript holds.)
	Replacement(session, toolUseID string) (sum string, ok bool)
	// Original is that call's output, as the hook got it.
	Original(session, toolUseID string) (string, error)
	// Stored is the output stored as entryID in session, whatever the
	// call: a Gemini CLI hook knows no call id, and its view, which the
	// chat holds, names the entry (`ctxkeep show ID`).
	Stored(session, entryID string) (string, error)
}

// Files replays transcripts. Subagent transcripts are replayed only when
// cfg swaps subagent calls.
func Files(paths []string, cfg *config.Config) (Report, error) {
	return FilesAs(paths, paths, cfg, nil)
}

// FilesAs replays the transcripts at paths as if they were at names: the
// report and the views (which name where a readable copy would be) show
// the names. A transcript written to a temporary folder to be replayed
// gives the same views, to the character, wherever that folder is. With
// originals (nil for none), the outputs ctxkeep replaced count as their
// originals.
func FilesAs(paths, names []string, cfg *config.Config, originals Originals) (Report, error) {
	r := Report{Transcripts: names, originals: originals}
	byTool := map[string]*Tally{}
	for i, path := range paths {
		if err := r.file(path, names[i], cfg, byTool); err != nil {
			return r, err
		}
	}
	for _, t := range byTool {
		r.ByTool = append(r.ByTool, *t)
		r.Total.add(*t)
	}
	// Largest first; ties by name: the tallies come out of a map, in an
	// order that changes from run to run.
	sort.Slice(r.ByTool, func(i, j int) bool {
		a, b := r.ByTool[i], r.ByTool[j]
		return a.CharsBefore > b.CharsBefore || a.CharsBefore == b.CharsBefore && a.Tool < b.Tool
	})
	r.Total.Tool = "total"
	return r, nil
}

func (r *Report) file(path, name string, cfg *config.Config, byTool map[string]*Tally) error {
	if codex.IsRollout(path) {
		return r.rollout(path, name, cfg, byTool)
	}
	if gemini.IsChat(path) {
		return r.chat(path, name, cfg, byTool)
	}
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		return err
	}
	if (len(f.Records) > 0 || len(f.Problems) > 0) && !slices.ContainsFunc(f.Records, isConversation) {
		return fmt.Errorf("%s is neither a Claude Code transcript nor a Codex rollout: none of its %d lines is a conversation's", name, len(f.Records)+len(f.Problems))
	}
	path = name
	r.BadLines += len(f.Problems)
	calls, _ := transcript.ToolCalls(f.Records)
	session := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	reads := &rereads{last: map[readKey]string{}}
	for i := range f.Records {
		if rec := &f.Records[i]; rec.MainThread() && rec.IsCompactBoundary() {
			reads.boundaries = append(reads.boundaries, rec.Line)
		}
	}
	for _, c := range calls {
		if c.Result == nil || !c.Use.MainThread() {
			continue
		}
		r.call(path, session, c, cfg, tallyOf(byTool, c.Name), reads)
	}
	return nil
}

// rollout replays a Codex rollout as the Codex hook would have seen it:
// every output over its threshold becomes the view (or the condensed
// output), within what Codex takes from a hook, failures included (Codex
// sends them to PostToolUse too); below it, the output stays whole.
func (r *Report) rollout(path, name string, cfg *config.Config, byTool map[string]*Tally) error {
	meta, outs, bad, err := codex.Outputs(path)
	if err != nil {
		return err
	}
	r.BadLines += bad
	budget := swap.Budget{Chars: min(cfg.View.Budget, codex.MaxHookText), Summary: cfg.View.SummaryLength, KeyLines: cfg.View.KeyPatterns}
	for _, o := range outs {
		t := tallyOf(byTool, o.Tool)
		text, before := o.Text, utf8.RuneCountInString(o.Seen)
		if stored, replaced := r.stored(meta.ID, o.ID, o.Seen); replaced {
			// ctxkeep replaced it when the session ran: the model got the
			// view, and would have got the output.
			text, before = stored, utf8.RuneCountInString(stored)
		}
		t.saw(before)
		in := claudecode.ParseInput(o.Input)
		call := swap.Call{Tool: o.Tool, Command: in.Command}
		if swap.Decide(call, text, cfg) != "" {
			continue
		}
		it := swap.Item{ID: swap.EntryID(meta.ID, o.ID), Tool: o.Tool, Input: in.Describe(o.Tool, o.Input), Text: text, Exit: swap.NoExit}
		if o.Exit != nil {
			it.Exit = *o.Exit
		}
		view, st := swap.Render(it, swap.Condensing(call, text, cfg), true, budget, cfg.Swap.CondenseMinSaving)
		r.tally(t, name, o.ID, it, view, st, before)
	}
	return nil
}

// chat replays a Gemini CLI chat as the Gemini hook would have seen it:
// every output over its threshold becomes the view (or the condensed
// output), failures included (AfterTool gets them too), with no cap (a
// deny's reason reaches the model whole); below it, the output stays
// whole. An output ctxkeep replaced while the session ran (the chat holds
// its view, which names the entry) counts from its stored original, as
// much of it as the model would have got without ctxkeep: the CLI cuts an
// output over gemini.CutAt characters to that many.
func (r *Report) chat(path, name string, cfg *config.Config, byTool map[string]*Tally) error {
	meta, outs, bad, err := gemini.Outputs(path)
	if err != nil {
		return err
	}
	r.BadLines += bad
	budget := swap.Budget{Chars: cfg.View.Budget, Summary: cfg.View.SummaryLength, KeyLines: cfg.View.KeyPatterns}
	for _, o := range outs {
		tool := gemini.ClaudeName(o.Tool)
		t := tallyOf(byTool, tool)
		text, before := o.Text, utf8.RuneCountInString(o.Seen)
		if stored, ok := r.storedView(meta.ID, o.Seen); ok {
			text, before = stored, min(utf8.RuneCountInString(stored), gemini.CutAt)
		}
		t.saw(before)
		in := claudecode.ParseInput(o.Input)
		call := swap.Call{Tool: tool, Command: in.Command, FilePath: in.FilePath}
		if swap.Decide(call, text, cfg) != "" {
			continue
		}
		it := swap.Item{ID: swap.EntryID(meta.ID, o.ID), Tool: tool, Input: in.Describe(tool, o.Input), Text: text, Exit: swap.NoExit}
		if o.Exit >= 0 {
			it.Exit = o.Exit
		}
		view, st := swap.Render(it, swap.Condensing(call, text, cfg), true, budget, cfg.Swap.CondenseMinSaving)
		r.tally(t, name, o.ID, it, view, st, before)
	}
	return nil
}

// viewEntry finds the stored output a view (or a condensed output) names
// on its first line: "[ctxkeep] … kept exactly as id ID".
var viewEntry = regexp.MustCompile(`^\[ctxkeep\] [^\n]*? kept exactly as id ([0-9a-f]{12})`)

// storedView is the original of an output whose view the chat holds, when
// the store still has it. Each such view is counted: replayed from its
// original, or its original unavailable.
func (r *Report) storedView(session, seen string) (string, bool) {
	if !gemini.IsView(seen) {
		return "", false
	}
	m := viewEntry.FindStringSubmatch(seen)
	if m == nil {
		return "", false
	}
	if r.originals == nil {
		return "", false
	}
	text, err := r.originals.Stored(session, m[1])
	if err != nil {
		r.Unavailable++
		return "", false
	}
	r.Replaced++
	return text, true
}

// isConversation reports whether rec is a line of a Claude Code
// conversation: every such line names its session or carries a message.
func isConversation(rec transcript.Record) bool { return rec.SessionID != "" || rec.Message != nil }

func tallyOf(byTool map[string]*Tally, tool string) *Tally {
	t := byTool[tool]
	if t == nil {
		t = &Tally{Tool: tool}
		byTool[tool] = t
	}
	return t
}

// rereads follows the Reads of one session as the hook does: the content
// of the last Read of each file's lines, forgotten at compaction.
type rereads struct {
	last       map[readKey]string // sha256 of the content
	boundaries []int              // lines of the compact boundaries, in order
}

type readKey struct {
	path          string
	offset, limit int
}

// repeats reports whether a Read (its result on line) returned what the
// last Read of the same lines returned since the last compaction, and
// remembers it.
func (r *rereads) repeats(line int, in claudecode.Input, content string) bool {
	for len(r.boundaries) > 0 && r.boundaries[0] < line {
		clear(r.last)
		r.boundaries = r.boundaries[1:]
	}
	k := readKey{in.FilePath, in.Offset, in.Limit}
	sum := sha256.Sum256([]byte(content))
	h := string(sum[:])
	seen, ok := r.last[k]
	r.last[k] = h
	return ok && seen == h
}

// call replays one tool call: what the model saw, and what it would have
// seen with ctxkeep.
func (r *Report) call(path, session string, c transcript.ToolCall, cfg *config.Config, t *Tally, reads *rereads) {
	seen := c.Result.Text()
	before := utf8.RuneCountInString(seen)
	text, ok := original(c, seen)
	if stored, found := r.stored(session, c.ID, proof.Recorded(c.Name, seen, c.Result.Structured)); found {
		// ctxkeep replaced it when the session ran: without ctxkeep, the
		// model would have seen the original.
		text, ok, before = stored, true, utf8.RuneCountInString(stored)
		if c.Name == "Read" {
			before += readPrefixes(stored) // the client's line numbers
		}
	}
	t.saw(before)
	if !claudecode.Replaceable(c.Name) || !ok {
		return // the hook cannot replace this tool's output either
	}
	in := claudecode.ParseInput(c.Input)
	call := swap.Call{Tool: c.Name, Command: in.Command, FilePath: in.FilePath}
	it := swap.Item{
		ID: swap.EntryID(session, c.ID), Tool: c.Name, Input: in.Describe(c.Name, c.Input), Text: text,
		Exit: exit(c), FilePath: in.FilePath,
		CopyPath: filepath.Join(strings.TrimSuffix(path, ".jsonl"), "tool-results", swap.CopyPrefix+swap.EntryID(session, c.ID)+".txt"),
	}
	if c.Name == "Read" && !c.Result.IsError && cfg.Swap.Rereads && swap.PassThrough(call, cfg.Swap) == "" &&
		reads.repeats(c.Result.Record.Line, in, text) && len(text) >= swap.MinPointer {
		view, st := swap.Pointer(it, swap.ReadRange(in.Offset, in.Limit))
		r.tally(t, path, c.ID, it, view, st, before)
		return
	}
	cd := swap.Condensing(call, text, cfg)
	var over bool
	if c.Result.IsError {
		// The client does not let a failed result be replaced; only the
		// wrapper could have shown a view of it, or condensed it.
		if c.Name != "Bash" || !wrapped(in.Command, cfg) {
			return
		}
		if over = swap.Over(text, cfg.ThresholdFor("Bash")); !over && cd == nil && !swap.Cleaning(call, text) {
			return
		}
	} else {
		var ok bool
		if cd, over, ok = swap.Replacing(call, text, cfg); !ok {
			return
		}
	}
	budget := swap.Budget{Chars: cfg.View.Budget, Summary: cfg.View.SummaryLength, KeyLines: cfg.View.KeyPatterns}
	view, st := swap.Render(it, cd, over, budget, cfg.Swap.CondenseMinSaving)
	if view == "" {
		return // not condensed enough: the output stays whole
	}
	if c.Result.IsError {
		t.Wrapped++
	}
	r.tally(t, path, c.ID, it, view, st, before)
}

// stored is the original of an output ctxkeep replaced when the session
// ran, when the transcript holds the replacement (recorded is what it
// holds: proof.Recorded) and the store still has the original. Each
// replacement is counted: replayed from its original, not applied, or
// its original unavailable.
func (r *Report) stored(session, toolUseID, recorded string) (string, bool) {
	if r.originals == nil {
		return "", false
	}
	sum, ok := r.originals.Replacement(session, toolUseID)
	if !ok {
		return "", false
	}
	if !proof.Holds(recorded, sum) {
		r.NotApplied++ // the model got the original: it counts as the transcript holds it
		return "", false
	}
	text, err := r.originals.Original(session, toolUseID)
	if err != nil {
		r.Unavailable++
		return "", false
	}
	r.Replaced++
	return text, true
}

// tally counts one output replaced by view.
func (r *Report) tally(t *Tally, path, id string, it swap.Item, view string, st swap.Stats, before int) {
	after := st.ViewChars
	if it.Tool == "Read" {
		after += readPrefixes(view)
	}
	switch st.Kind {
	case swap.KindCondensed:
		t.Condensed++
		t.CondensedChars += before
		t.CondensedTo += after
	case swap.KindPointer:
		t.Pointers++
	case swap.KindCleaned: // the same lines without control sequences: counted in the figures above, not as swapped
	default:
		t.Swapped++
		t.SwappedChars += before
		t.ViewChars += after
	}
	t.CharsAfter += after - before
	t.FailureLines += st.Failures
	t.FailureShown += st.Shown
	r.Views = append(r.Views, View{Transcript: path, ToolUseID: id, Tool: it.Tool, Input: it.Input, Exit: it.Exit, Kind: st.Kind, Original: it.Text, View: view, Failures: st.Failures})
}

// original is the output as the hook would get it: the structured result
// when the transcript has it (a result the hook could not read, such as an
// image, stays as it is), else what the model saw.
func original(c transcript.ToolCall, seen string) (string, bool) {
	if c.Result.IsError || c.Result.Structured == nil {
		return seen, true
	}
	out, err := claudecode.ReadOutput(c.Name, c.Result.Structured)
	return out.Text, err == nil
}

func wrapped(command string, cfg *config.Config) bool {
	return cfg.Wrapper.Enabled && swap.RunsAny(command, cfg.Wrapper.Commands) && swap.Wrappable(command)
}

// exit reads a Bash result's exit status: 0 for a success, the code of an
// "Exit code N" failure.
func exit(c transcript.ToolCall) int {
	if c.Name != "Bash" {
		return swap.NoExit
	}
	if !c.Result.IsError {
		return 0
	}
	var code int
	if _, err := fmt.Sscanf(c.Result.Text(), "Exit code %d", &code); err == nil {
		return code
	}
	return swap.NoExit
}

// readPrefixes is what the client adds to a Read view: a line number and a
// tab on each line.
func readPrefixes(view string) int {
	n := strings.Count(view, "\n")
	return n * (len(fmt.Sprint(n)) + 1)
}
