package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/excerpt"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/search"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Search results: at most maxLimit of them (defaultLimit unless asked),
// each with its linesPerHit best-matching lines of at most lineWidth bytes.
const (
	defaultLimit = 5
	maxLimit     = 50
	linesPerHit  = 3
	lineWidth    = 200
)

type searchArgs struct {
	Query   string `json:"query"`
	Session string `json:"session"`
	Limit   *int   `json:"limit"`
	Team    bool   `json:"team"`
}

// search ranks the archive's turns as `ctxkeep search` does (this
// project's sessions, or one session) and returns, for each, its key, where
// it came from and the lines that match best, numbered as recall numbers
// the turn's lines, so that recall with lines="A:B" reads around them.
func (s *server) search(ctx context.Context, _ *sdk.CallToolRequest, in searchArgs) (*sdk.CallToolResult, any, error) {
	limit := defaultLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > maxLimit {
			return nil, nil, fmt.Errorf("bad limit %d: want 1 to %d", *in.Limit, maxLimit)
		}
		limit = *in.Limit
	}
	if in.Team {
		return s.withArchive(ctx, true, func(_ ctxkeep.ArchiveIndex, _ ctxkeep.Store, t Team) (string, error) {
			return s.searchTeam(ctx, t, in, limit)
		})
	}
	if in.Session != "" {
		if err := checkPrefix("session", in.Session); err != nil {
			return nil, nil, err
		}
	}
	return s.withArchive(ctx, false, func(idx ctxkeep.ArchiveIndex, st ctxkeep.Store, _ Team) (string, error) {
		q := search.Query{Text: in.Query, Limit: limit, Project: s.Project}
		signals := search.Signals{Now: s.Now()}
		scope := "this project's sessions"
		if in.Session != "" {
			ids, err := idx.ChunkSessions(ctx)
			if err != nil {
				return "", err
			}
			if q.Session, err = recall.MatchSession(ids, strings.TrimSpace(in.Session), "in the archive"); err != nil {
				return "", err
			}
			q.Project, scope = "", "session "+text.Abbrev(q.Session)
			signals.Files, _ = keep.FilesInPlay(ctx, idx, q.Session) // a ranking hint: none is fine
		}
		ranked, err := search.Search(ctx, idx, q, signals)
		if errors.Is(err, ctxkeep.ErrEmptyQuery) {
			return "", fmt.Errorf("%w; common words (the, of, what…) are left out: add a distinctive one", err)
		}
		if err != nil {
			return "", err
		}
		if len(ranked) == 0 {
			return fmt.Sprintf("no match for %s in %s\n", echoed(in.Query), scope), nil
		}
		chunks := make([]ctxkeep.Chunk, len(ranked))
		for i, r := range ranked {
			chunks[i] = r.Chunk
		}
		return hitList(ctx, st, chunks, in.Query, func(ctxkeep.Chunk) string { return "" })
	})
}

// maxEcho is how much of a query an answer repeats: the model wrote it,
// and a megabyte of it back costs its context a megabyte.
const maxEcho = 200

// echoed is the query as an answer repeats it: quoted, cut to maxEcho
// bytes with its length said when longer.
func echoed(query string) string {
	if len(query) <= maxEcho {
		return fmt.Sprintf("%q", query)
	}
	return fmt.Sprintf("%q (%d characters)", text.Cut(query, maxEcho), utf8.RuneCountInString(query))
}

// searchTeam is search in the team archive, ranked as the command's
// `search --team` ranks: this folder's team project (or a session, or
// every project the role may read), each hit with whose session it is and
// in which team project.
func (s *server) searchTeam(ctx context.Context, t Team, in searchArgs, limit int) (string, error) {
	q := ctxkeep.ChunkQuery{Text: in.Query, Project: s.TeamProject, Session: in.Session, Limit: max(limit*5, 50)}
	scope := "the team archive"
	switch {
	case in.Session != "":
		q.Project, scope = "", "session "+text.Abbrev(in.Session)+" of the team archive"
	case s.TeamProject != "":
		scope = "team project " + s.TeamProject
	}
	hits, owners, err := t.SearchTeam(ctx, q)
	if errors.Is(err, ctxkeep.ErrEmptyQuery) {
		return "", fmt.Errorf("%w; common words (the, of, what…) are left out: add a distinctive one", err)
	}
	if err != nil {
		return "", err
	}
	ranked, err := search.Rank(ctx, q.Text, hits, search.Signals{Now: s.Now()})
	if err != nil {
		return "", err
	}
	if len(ranked) == 0 {
		return fmt.Sprintf("no match for %s in %s\n", echoed(in.Query), scope), nil
	}
	chunks := make([]ctxkeep.Chunk, 0, limit)
	for _, r := range ranked[:min(limit, len(ranked))] {
		chunks = append(chunks, r.Chunk)
	}
	return hitList(ctx, t, chunks, in.Query, func(c ctxkeep.Chunk) string {
		return " · " + safe(owners[c.Key]) + " · " + safe(c.Project)
	})
}

// hitList is search's answer: for each chunk found, a line with its key,
// whose (from who: "" locally), session, place, time and summary, then
// its best-matching lines.
func hitList(ctx context.Context, st ctxkeep.Store, chunks []ctxkeep.Chunk, query string, who func(ctxkeep.Chunk) string) (string, error) {
	var b strings.Builder
	for _, c := range chunks {
		fmt.Fprintf(&b, "%s%s · session %s · %s %s · %s · %s\n", c.Key, who(c), c.SessionID[:min(8, len(c.SessionID))], c.Kind, recall.Place(c),
			c.End.Local().Format("2006-01-02 15:04"), text.Cut(safe(text.FirstLine(c.Summary)), lineWidth))
		// What the query named in the step, with how its commands went,
		// and what else it ran.
		for l := range strings.Lines(search.Named(c, query).Text()) {
			b.WriteString("  " + text.Cut(strings.TrimSuffix(l, "\n"), 2*lineWidth) + "\n")
		}
		lines, err := matchingLines(ctx, st, c, query)
		if err != nil {
			return "", err
		}
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	return bound(b.String(), true), nil
}

// matchingLines are the lines of the chunk, as recall prints it (its
// stored outputs put back), that hold the most of the query's words, in
// their order, each as "N:line".
func matchingLines(ctx context.Context, st ctxkeep.Store, c ctxkeep.Chunk, query string) ([]string, error) {
	var whole strings.Builder
	if err := recall.Write(ctx, &whole, st, []ctxkeep.Chunk{c}); err != nil {
		return nil, err
	}
	words := queryWords(query)
	phrase := strings.ToLower(strings.TrimSpace(query))
	type scored struct{ n, score int }
	var best []scored
	lines := excerpt.SplitLines([]byte(redact.String(whole.String()))) // whole: a PEM block spans lines
	for i, l := range lines {
		if i == 0 {
			continue // recall's heading
		}
		lower := strings.ToLower(l)
		score := 0
		for _, w := range words {
			if strings.Contains(lower, w) {
				score += len(w)
			}
		}
		if phrase != "" && strings.Contains(lower, phrase) {
			score += 1000 // the query as it was written: an exact line
		}
		if score > 0 {
			best = append(best, scored{i, score})
		}
	}
	slices.SortStableFunc(best, func(a, b scored) int { return b.score - a.score })
	best = best[:min(linesPerHit, len(best))]
	slices.SortFunc(best, func(a, b scored) int { return a.n - b.n })
	out := make([]string, len(best))
	for k, s := range best {
		out[k] = fmt.Sprintf("%d:%s", s.n+1, text.Cut(safe(strings.TrimRight(lines[s.n], "\r\n")), lineWidth))
	}
	return out, nil
}

// queryWords are the query's distinct words of three characters or more,
// lower case.
func queryWords(query string) []string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127)
	}) {
		if len(w) >= 3 && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return words
}

// safe is archived text as the model may see it in a list: control
// sequences stripped, secrets redacted.
func safe(s string) string { return redact.String(text.Printable(s)) }
