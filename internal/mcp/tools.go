package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/excerpt"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// The tools' descriptions and schemas are what the model is sent once it
// loads a tool: every word costs context in every session that does, so
// they say what the model cannot guess and nothing more. Parameters are
// named after the command's flags.
const (
	showDescription = `A tool output ctxkeep kept out of the context, exact, or the part asked for; ` +
		`lines come numbered N: (match) and N- (context).`
	recallDescription = `An archived step or turn, exact, its stored outputs put back; narrowed as show is.`
	searchDescription = `Search this project's archived sessions, stored outputs included: keys for recall, ` +
		`with session, turn.step, time and the matching lines, numbered as recall numbers them.`

	teamSearchDescription = ` team: the team archive instead, saying whose session and which project.`
	teamRecallDescription = ` team: a key search team gave.`

	// Each parameter says what it takes in a few words: the model sees
	// them once it loads the tools, and guesses wrong without them.
	narrowProperties = `"lines":{"type":"string","description":"\"A:B\" from 1; \"A:\" or \":B\" open"},` +
		`"grep":{"type":"string","description":"RE2: the matching lines"},` +
		`"context":{"type":"integer","description":"lines around each match"},` +
		`"head":{"type":"integer","description":"first N lines"},` +
		`"tail":{"type":"integer","description":"last N lines"}`
	showSchema = `{"type":"object","properties":{"id":{"type":"string","description":"the id a view names, or its first 6+ characters"},` + narrowProperties +
		`,"failures":{"type":"boolean","description":"each failure with its cause"}},"required":["id"],"additionalProperties":false}`
	recallSchema = `{"type":"object","properties":{"key":{"type":"string","description":"a [k…] mark, or SESSION:TURN[.STEP][-TURN[.STEP]]"},` + narrowProperties +
		`},"required":["key"],"additionalProperties":false}`
	searchSchema = `{"type":"object","properties":{"query":{"type":"string","description":"words to find"},` +
		`"session":{"type":"string","description":"one session: its id or first 6+ characters"},` +
		`"limit":{"type":"integer","description":"1 to 50, default 5"}},"required":["query"],"additionalProperties":false}`
)

// withTeam adds the team parameter to a schema.
func withTeam(schema string) string {
	return strings.Replace(schema, `"properties":{`, `"properties":{"team":{"type":"boolean","description":"the team archive instead"},`, 1)
}

// narrowArgs are the parameters of show and recall that pick a part, as
// the command's flags do; a count given as 0 is given (and refused).
type narrowArgs struct {
	Lines   string `json:"lines"`
	Grep    string `json:"grep"`
	Context *int   `json:"context"`
	Head    *int   `json:"head"`
	Tail    *int   `json:"tail"`
}

func (a narrowArgs) excerpt() excerpt.Options {
	count := func(n *int) excerpt.Count {
		if n == nil {
			return excerpt.Count{}
		}
		return excerpt.Count{N: *n, Set: true}
	}
	return excerpt.Options{Lines: a.Lines, Grep: a.Grep, Context: count(a.Context), Head: count(a.Head), Tail: count(a.Tail)}
}

type showArgs struct {
	ID string `json:"id"`
	narrowArgs
	Failures bool `json:"failures"`
}

// show returns a stored output, or the part asked for, and counts a
// retrieval by the agent: only the agent calls the server.
func (s *server) show(ctx context.Context, _ *sdk.CallToolRequest, in showArgs) (*sdk.CallToolResult, any, error) {
	x := in.excerpt()
	x.Failures = in.Failures
	if err := x.Validate(); err != nil {
		return nil, nil, err
	}
	return s.withStore(ctx, func(st Store) (string, error) {
		e, err := s.entry(ctx, st, in.ID)
		switch {
		case errors.Is(err, ctxkeep.ErrNotFound):
			return "", fmt.Errorf("no stored output has the id %q: use the id a view names (\"kept exactly as id …\")", in.ID)
		case err != nil:
			return "", err
		}
		data, err := st.Open(ctx, e.Hash)
		if errors.Is(err, ctxkeep.ErrCorrupt) {
			return "", fmt.Errorf("the stored copy of %s is damaged and will not be shown: %w", e.ID, err)
		}
		if err != nil {
			return "", err
		}
		var b strings.Builder
		if err := x.Write(&b, shown(data)); err != nil {
			return "", err
		}
		// A retrieval not counted (the index busy past its timeout) is
		// better than an output not given.
		_ = st.Touch(ctx, e.ID, s.Now())
		return bound(b.String(), x.Set()), nil
	})
}

type recallArgs struct {
	Key string `json:"key"`
	narrowArgs
	Team bool `json:"team"`
}

// recall returns archived steps or turns as `ctxkeep recall` prints them, or the
// part asked for.
func (s *server) recall(ctx context.Context, _ *sdk.CallToolRequest, in recallArgs) (*sdk.CallToolResult, any, error) {
	x := in.excerpt()
	if err := x.Validate(); err != nil {
		return nil, nil, err
	}
	key, _, _ := strings.Cut(in.Key, ":")
	if err := checkPrefix("key", key); err != nil {
		return nil, nil, err
	}
	return s.withArchive(ctx, in.Team, func(idx ctxkeep.ArchiveIndex, st ctxkeep.Store, _ Team) (string, error) {
		chunks, err := recall.Chunks(ctx, idx, in.Key)
		if err != nil {
			return "", err
		}
		var whole, b strings.Builder
		if err := recall.Write(ctx, &whole, st, chunks); err != nil {
			return "", err
		}
		if err := x.Write(&b, shown([]byte(whole.String()))); err != nil {
			return "", err
		}
		return bound(b.String(), x.Set()), nil
	})
}

// shown is a stored output or an archived step as a terminal shows it
// (text.Printable: line for line, so line numbers and grep hold): the
// tools' results are text for the model, and escape sequences are noise
// to it. `ctxkeep show` and `recall` print the exact bytes.
func shown(data []byte) []byte { return []byte(text.Printable(string(data))) }
