package keep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// kept counts, for one kind of detail, how many of the details a session
// needed after its compaction were in each place: the restore block as
// 2.1.330 gets it (the summary not yet in the transcript), that block with
// the PostCompact supplement, the client's summary, all three, the block
// made knowing the summary (a client that writes it first), and search.
type kept struct{ needed, restore, supplemented, summary, all, aware, search int }

func (k *kept) add(o kept) {
	k.needed, k.restore, k.supplemented = k.needed+o.needed, k.restore+o.restore, k.supplemented+o.supplemented
	k.summary, k.all, k.aware, k.search = k.summary+o.summary, k.all+o.all, k.aware+o.aware, k.search+o.search
}

func (k kept) String() string {
	pct := func(n int) string {
		if k.needed == 0 {
			return "–"
		}
		return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(k.needed))
	}
	return fmt.Sprintf("%4d needed | restore block %s | + supplement %s | client summary %s | all three %s | block knowing the summary %s | search top 3 %s",
		k.needed, pct(k.restore), pct(k.supplemented), pct(k.summary), pct(k.all), pct(k.aware), pct(k.search))
}

// TestSpotterCompaction replays the compaction of each of the five long
// spotter sessions: the archive holds the session up to its compact
// boundary, as it would when the client compacts. The details the session
// uses after the boundary (file paths, commands, error lines) that it
// had seen before are looked for in the restore block ctxkeep injects, in
// the top 3 of `ctxkeep search` for each, and in the client's own summary
// (subagents/agent-acompact-*.jsonl). Then, as the agent would search
// after compaction, each file and command is searched for with the words
// the agent wrote just before using it again (needsAfter): the step
// holding it must be in the top 3 in at least 80 % of cases.
// docs/KEEP.md reports the figures.
func TestSpotterCompaction(t *testing.T) {
	files := spotterSessions(t)
	cfg := config.Default()
	o := Options{
		RestoreBudget: cfg.Restore.Budget, Relevant: cfg.Keep.Relevant,
		IsCheck: func(cmd string) bool { return swap.RunsAny(cmd, cfg.Wrapper.Commands) },
	}
	totals := map[string]*kept{"files": {}, "commands": {}, "errors": {}}
	intent := map[string]*intentFigure{"files": {}, "commands": {}}
	for _, path := range files {
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		before, after, ok := splitAtBoundary(t, path)
		if !ok {
			continue
		}
		st := newStore(t)
		cwd := firstCwd(before)
		// The transcript as SessionStart(compact) reads it with 2.1.330:
		// the summary is not written yet.
		pre := Session{ID: id, Project: cwd, Transcript: writeTemp(t, before)}
		o.Now = lastTimestamp(before)
		block, err := Restore(ctx, st, pre, o)
		if err != nil {
			t.Fatal(err)
		}
		summary := clientSummary(t, filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents"))
		if summary == "" {
			t.Fatalf("%s: no client summary", id)
		}
		// PostCompact then learns the summary: the supplement.
		state, _, _, err := State(ctx, st, pre, o.IsCheck)
		if err != nil {
			t.Fatal(err)
		}
		supplement := Supplement(SupplementInput{State: state, Summary: SummaryOf(summary), Restored: block, Project: cwd, Session: id, Budget: 3000})
		// A client that writes the summary first: the block knows it.
		aware, err := Restore(ctx, newStore(t), Session{ID: id, Project: cwd,
			Transcript: writeTemp(t, append(slices.Clone(before), throughSummary(after)...))}, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s restore block: %d bytes, supplement %d bytes; knowing the summary: %d bytes", id[:8], len(block), len(supplement), len(aware))
		preChunks, err := st.Chunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		// What came after the boundary, archived on its own as a session.
		full := newStore(t)
		if _, err := Archive(ctx, full, Session{ID: id, Transcript: writeTemp(t, after)}); err != nil {
			t.Fatal(err)
		}
		postChunks, err := full.Chunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		seen, used := details(preChunks), details(postChunks)
		inPlay, err := FilesInPlay(ctx, st, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needsAfter(t, writeTemp(t, after), seen) {
			f := intent[n.kind]
			f.needed++
			if intentSearch(t, st, id, cwd, n, search.Signals{Now: o.Now, Files: inPlay}) {
				f.found++
			} else if testing.Verbose() {
				t.Logf("%s: search misses %q for %.120q", id[:8], n.detail, n.query)
			}
		}
		for kind := range totals {
			var k kept
			for _, d := range sorted(used[kind]) {
				if !seen[kind][d] {
					continue
				}
				k.needed++
				if mentions(block, d, cwd) {
					k.restore++
				} else {
					t.Logf("%s: the restore block misses %q", id[:8], d)
				}
				if searchFinds(t, st, id, d, cwd) {
					k.search++
				}
				inBlock, inSupplement, inSummary := mentions(block, d, cwd), mentions(supplement, d, cwd), mentions(summary, d, cwd)
				if inBlock || inSupplement {
					k.supplemented++
				}
				if inSummary {
					k.summary++
				}
				if inBlock || inSupplement || inSummary {
					k.all++
				}
				if mentions(aware, d, cwd) || inSummary {
					k.aware++
				}
			}
			t.Logf("%s %-8s %s", id[:8], kind, k)
			totals[kind].add(k)
		}
	}
	var all kept
	for _, kind := range []string{"files", "commands", "errors"} {
		t.Logf("all      %-8s %s", kind, *totals[kind])
		all.add(*totals[kind])
	}
	t.Logf("all      together %s", all)
	in := intentFigure{intent["files"].needed + intent["commands"].needed, intent["files"].found + intent["commands"].found}
	t.Logf("search with the agent's words before each use, top 3: files %s, commands %s, together %s", *intent["files"], *intent["commands"], in)
	if in.needed == 0 || float64(in.found) < 0.8*float64(in.needed) {
		t.Errorf("search with the agent's own words finds the step holding what it needed %s of the time, want at least 80%%", in)
	}
	if all.needed == 0 {
		t.Fatal("no detail of the sessions was used again after their compaction: the extraction is broken")
	}
	if all.all < all.needed*9/10 || all.aware < all.needed*9/10 {
		t.Errorf("what the model is given after compaction keeps less than 90%% of what the session needed: %s", all)
	}
}

// splitAtBoundary returns the transcript's lines before its first compact
// boundary and those after it.
func splitAtBoundary(t *testing.T, path string) (before, after []byte, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			break
		}
		line := data[at : at+end+1]
		if bytes.Contains(line, []byte(`"subtype":"compact_boundary"`)) {
			return data[:at], data[at:], true
		}
		at += end + 1
	}
	return nil, nil, false
}

// throughSummary is the start of what follows a compact boundary, up to
// and with the client's summary line.
func throughSummary(after []byte) []byte {
	for at := 0; at < len(after); {
		end := bytes.IndexByte(after[at:], '\n')
		if end < 0 {
			break
		}
		if bytes.Contains(after[at:at+end], []byte(`"isCompactSummary":true`)) {
			return after[:at+end+1]
		}
		at += end + 1
	}
	return nil
}

func writeTemp(t *testing.T, data []byte) string {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func lastTimestamp(data []byte) time.Time {
	var last time.Time
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r struct{ Timestamp time.Time }
		if json.Unmarshal(line, &r) == nil && !r.Timestamp.IsZero() {
			last = r.Timestamp
		}
	}
	return last
}

// clientSummary is the text of the client's compaction summary, the last
// assistant text of its compaction agent.
func clientSummary(t *testing.T, dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "agent-acompact-*.jsonl"))
	var text string
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r struct {
				Type    string
				Message struct {
					Content json.RawMessage
				}
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Type != "assistant" {
				continue
			}
			var blocks []struct{ Type, Text string }
			if json.Unmarshal(r.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "text" {
						text = b.Text
					}
				}
			}
		}
		f.Close()
	}
	return text
}

// details are the file paths, commands and error lines of chunks.
func details(chunks []ctxkeep.Chunk) map[string]map[string]bool {
	out := map[string]map[string]bool{"files": {}, "commands": {}, "errors": {}}
	for _, c := range chunks {
		if !c.Conversation() {
			continue
		}
		for _, f := range append(c.Meta.FilesRead, c.Meta.FilesModified...) {
			out["files"][f] = true
		}
		for _, r := range c.Meta.Commands {
			out["commands"][r.Run] = true
		}
		for _, e := range c.Meta.Errors {
			out["errors"][e] = true
		}
	}
	return out
}

func sorted(set map[string]bool) []string {
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// mentions reports whether text holds the detail: a file by its path or
// its path in the project, a long command or error line (blocks shorten
// them) by its first 60 characters.
func mentions(text, detail, cwd string) bool {
	if rel, ok := strings.CutPrefix(detail, cwd+"/"); ok && cwd != "" && strings.Contains(text, rel) {
		return true
	}
	if len(detail) > 80 {
		detail = detail[:60]
	}
	return strings.Contains(text, detail)
}

// firstCwd is the working directory the transcript records first.
func firstCwd(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r struct{ Cwd string }
		if json.Unmarshal(line, &r) == nil && r.Cwd != "" {
			return r.Cwd
		}
	}
	return ""
}

// searchFinds reports whether `ctxkeep search DETAIL --session ID` ranks a
// turn holding the detail in its top 3.
func searchFinds(t *testing.T, st *store.Store, id, detail, cwd string) bool {
	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: detail, Session: id, Limit: 50})
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	ranked, err := search.Rank(ctx, detail, hits, search.Signals{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ranked[:min(3, len(ranked))] {
		c, err := st.Chunk(ctx, r.Key)
		if err != nil {
			t.Fatal(err)
		}
		d := details([]ctxkeep.Chunk{c})
		if d["files"][detail] || d["commands"][detail] || d["errors"][detail] || mentions(c.Prompt+"\n"+c.Body, detail, cwd) {
			return true
		}
	}
	return false
}
