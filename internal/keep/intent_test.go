package keep

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// need is one detail a session used again after its compaction, with what
// the agent wrote just before using it: the words it would search with.
type need struct {
	kind   string // "files" or "commands"
	detail string
	query  string
}

// needsAfter walks the records after a compaction boundary and returns,
// for the first use of each file path and command the session had seen
// before it, the agent's words just before that use: the text of the
// response holding the tool call, else the latest text before it.
func needsAfter(t *testing.T, path string, seen map[string]map[string]bool) []need {
	f, err := transcript.ReadFile(path, transcript.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	var out []need
	used := map[string]bool{}
	last := ""
	for _, r := range f.Records {
		if r.Type != transcript.TypeAssistant || r.Message == nil || !r.MainThread() {
			continue
		}
		for _, b := range r.Message.Content.Blocks {
			switch b.Type {
			case transcript.BlockText:
				if s := strings.TrimSpace(b.Text); s != "" {
					last = s
				}
			case transcript.BlockToolUse:
				in := claudecode.ParseInput(b.Input)
				kind, d := "", ""
				switch b.Name {
				case "Read", "Write", "Edit", "MultiEdit":
					kind, d = "files", in.FilePath
				case "Bash":
					kind, d = "commands", in.Command
				}
				if d == "" || used[d] || !seen[kind][d] || last == "" {
					continue
				}
				used[d] = true
				out = append(out, need{kind: kind, detail: d, query: last})
			}
		}
	}
	return out
}

// intentSearch reports whether a search of the session's archive with the
// agent's words ranks a chunk holding the detail in its top 3.
func intentSearch(t *testing.T, st ctxkeep.Store, id, cwd string, n need, sig search.Signals) bool {
	rs, err := search.Search(ctx, st, search.Query{Text: n.query, Session: id, Conversation: true, Limit: 3}, sig)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		c, err := st.Chunk(ctx, r.Key)
		if err != nil {
			t.Fatal(err)
		}
		if holds(c, n, cwd) {
			return true
		}
	}
	return false
}

// holds reports whether a chunk holds a detail: in its metadata, or
// written in its text.
func holds(c ctxkeep.Chunk, n need, cwd string) bool {
	d := details([]ctxkeep.Chunk{c})
	return d[n.kind][n.detail] || mentions(c.Prompt+"\n"+c.Body, n.detail, cwd)
}

type intentFigure struct{ needed, found int }

func (f intentFigure) String() string {
	if f.needed == 0 {
		return "–"
	}
	return fmt.Sprintf("%d of %d (%.0f%%)", f.found, f.needed, 100*float64(f.found)/float64(f.needed))
}
