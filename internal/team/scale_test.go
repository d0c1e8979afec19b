package team

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// TestScale measures the team archive at scale (docs/BENCHMARKS.md): the
// throughput of `ctxkeep team sync` from a local store, then, with the
// archive filled to CTXKEEP_SCALE_CHUNKS chunks (20 projects, 500 chunks a
// session, a fifth of them with an output), the latency of team search as
// a member granted a quarter of the projects. Chunks are made of lines of
// the real transcripts in shared/data, so words are as frequent as in real
// sessions. It runs only when CTXKEEP_SCALE_CHUNKS is set
// (scripts/bench-team.sh sets it and starts a server).
func TestScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CTXKEEP_SCALE_CHUNKS"))
	if n == 0 {
		t.Skip("CTXKEEP_SCALE_CHUNKS is not set (scripts/bench-team.sh)")
	}
	syncN := min(n, 50_000)
	if v := os.Getenv("CTXKEEP_SCALE_SYNC"); v != "" {
		syncN, _ = strconv.Atoi(v)
	}
	admin := openTeam(t)
	corpus := loadCorpus(t)
	t.Logf("corpus: %d lines, %d paths from shared/data", len(corpus.lines), len(corpus.paths))

	if syncN > 0 {
		measureSync(t, admin, corpus, syncN)
	}
	gen := &generator{c: corpus, r: rand.New(rand.NewPCG(1, 2))}

	// 2. Fill a schema of its own to n chunks, two writers pushing batches
	// of 500; it is kept for the next run, which only searches.
	schema := fmt.Sprintf("scale_%d", n)
	big, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.DSN(t), Schema: schema, Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	if err := big.Init(ctx); err != nil {
		t.Fatal(err)
	}
	have, err := big.Counts(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &generator{c: corpus, r: rand.New(rand.NewPCG(uint64(w)+10, 3))}
			for s := range next {
				if err := g.fill(big, s); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	total := int(have.Chunks)
	for s := total / 500; total < n; s++ {
		next <- s
		total += 500
		if s%200 == 199 {
			t.Logf("fill: %d chunks, %.0f chunks/s", total, float64(total-int(have.Chunks))/time.Since(start).Seconds())
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if added := total - int(have.Chunks); added > 0 {
		el := time.Since(start)
		t.Logf("FILL %d chunks in %s: %.0f chunks/s", added, el.Round(time.Second), float64(added)/el.Seconds())
		pgtest.Exec(t, "VACUUM ANALYZE "+schema+".chunks", "VACUUM ANALYZE "+schema+".blobs", "VACUUM ANALYZE "+schema+".entries")
	}
	var size string
	pgtest.QueryRow(t, "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
		[]any{schema}, &size)
	t.Logf("SIZE %s for %d chunks", size, total)

	// 3. Team search as a member granted 5 of the 20 projects (row-level
	// security on), as `ctxkeep search --team` asks (50 candidates).
	role := pgtest.Role(t, "pw")
	for i := range 5 {
		if err := big.Grant(ctx, role, fmt.Sprintf("proj-%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	bob := member{role: role, remote: pgtest.OpenAs(t, role, schema)}
	// A server warms up as it serves: another set of queries first, not
	// timed (the figures of a server just started are in BENCHMARKS.md too).
	warm := &generator{c: corpus, r: rand.New(rand.NewPCG(7, 7))}
	for _, q := range warm.queries(300) {
		if _, err := bob.remote.Search(ctx, ctxkeep.ChunkQuery{Text: q.text, Limit: 50}); err != nil {
			t.Fatal(err)
		}
	}
	queries := gen.queries(300)
	for _, scope := range []string{"", "proj-01"} {
		lat := map[string][]time.Duration{}
		hits := map[string]int{}
		for _, q := range queries {
			start := time.Now()
			hs, err := bob.remote.Search(ctx, ctxkeep.ChunkQuery{Text: q.text, Project: scope, Limit: 50})
			if err != nil {
				t.Fatalf("%q: %v", q.text, err)
			}
			d := time.Since(start)
			if len(hs) == 0 {
				t.Logf("SEARCH scope %q, %s: no hit for %q", scope, q.kind, q.text)
			}
			for _, k := range []string{q.kind, "all"} {
				lat[k] = append(lat[k], d)
				if len(hs) > 0 {
					hits[k]++
				}
			}
		}
		for _, k := range []string{"words", "error line", "file name", "all"} {
			l := lat[k]
			slices.Sort(l)
			t.Logf("SEARCH scope %q, %s: %d queries, %d with hits: median %s, p95 %s, max %s", scope, k, len(l), hits[k],
				l[len(l)/2].Round(100*time.Microsecond), l[len(l)*95/100].Round(100*time.Microsecond), l[len(l)-1].Round(100*time.Microsecond))
		}
	}
}

// fill pushes session s: 500 chunks of one of 20 projects.
func (g *generator) fill(db *postgres.DB, s int) error {
	p := fmt.Sprintf("proj-%02d", s%20)
	session := fmt.Sprintf("fill-%06d", s)
	push := postgres.Push{Project: p, Sessions: []postgres.Session{{ID: session}}}
	for i := range 500 {
		c, out := g.chunk(session, "", i+1)
		if out != "" {
			data := []byte(out)
			push.Blobs = append(push.Blobs, postgres.Blob{Hash: ctxkeep.Sum(data), Size: int64(len(data)), Data: data})
			push.Entries = append(push.Entries, ctxkeep.Entry{ID: c.Meta.Entries[0], SessionID: session, Tool: "Bash",
				Hash: ctxkeep.Sum(data), Chars: len(out), CreatedAt: c.End})
			c.Outputs = []string{out}
		}
		push.Chunks = append(push.Chunks, c)
	}
	_, err := db.Push(ctx, push)
	return err
}

// measureSync is the throughput of a member's sync of n chunks from a
// local store.
func measureSync(t *testing.T, admin *postgres.DB, corpus corpus, syncN int) {
	// 1. Sync throughput: a member's local store of syncN chunks, pushed.
	alice := newMember(t, admin, "proj-00")
	gen := &generator{c: corpus, r: rand.New(rand.NewPCG(1, 2))}
	var outBytes, chunkBytes int64
	for s := 0; s*500 < syncN; s++ {
		session := fmt.Sprintf("sync-%04d", s)
		var cs []ctxkeep.Chunk
		for i := range min(500, syncN-s*500) {
			c, out := gen.chunk(session, "/src/proj-00", i+1)
			chunkBytes += int64(len(c.Prompt) + len(c.Summary) + len(c.Body))
			if out != "" {
				id := c.Meta.Entries[0]
				if _, err := alice.local.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: session, ToolUseID: "toolu_" + id, Tool: "Bash",
					Input: "go test ./...", Chars: len(out), CreatedAt: c.End}, []byte(out)); err != nil {
					t.Fatal(err)
				}
				outBytes += int64(len(out))
			}
			cs = append(cs, c)
		}
		if _, err := alice.local.SaveChunks(ctx, session, cs, ctxkeep.ArchiveCursor{Transcript: session}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	res, err := alice.sync(t, Options{Projects: []Project{{Root: "/src/proj-00", Name: "proj-00"}}, PushOutputs: true})
	if err != nil || res.Chunks != syncN {
		t.Fatalf("sync: %+v, %v", res, err)
	}
	el := time.Since(start)
	t.Logf("SYNC %d chunks (%.1f MB of text) and %d outputs (%.1f MB) in %s: %.0f chunks/s, %.1f MB/s",
		res.Chunks, mb(chunkBytes), res.Texts, mb(outBytes), el.Round(time.Millisecond), float64(res.Chunks)/el.Seconds(), mb(chunkBytes+outBytes)/el.Seconds())
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// corpus is the text the benchmark's chunks are made of: lines of real
// sessions and the paths they touched.
type corpus struct {
	lines, paths []string
}

// loadCorpus collects the strings of the real transcripts of shared/data:
// lines of 20 to 300 characters, and absolute paths of files.
func loadCorpus(t *testing.T) corpus {
	t.Helper()
	files, _ := filepath.Glob(realdata.Path("cc-sessions-*/*.jsonl"))
	more, _ := filepath.Glob(realdata.Path("cc-sessions-*/*/*.jsonl"))
	files = append(files, more...)
	if len(files) == 0 {
		realdata.Missing(t, "no transcripts in %s", realdata.Path("cc-sessions-*"))
	}
	seenLine, seenPath := map[string]bool{}, map[string]bool{}
	var c corpus
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for _, l := range strings.Split(v, "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "/") && !strings.ContainsAny(l, " \t") && strings.Contains(filepath.Base(l), ".") && !seenPath[l] {
					seenPath[l] = true
					c.paths = append(c.paths, l)
				} else if len(l) >= 20 && len(l) <= 300 && !seenLine[l] {
					seenLine[l] = true
					c.lines = append(c.lines, l)
				}
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var v any
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				walk(v)
			}
		}
		fh.Close()
	}
	slices.Sort(c.lines) // map order must not make runs differ
	slices.Sort(c.paths)
	return c
}

type generator struct {
	c corpus
	r *rand.Rand
}

func (g *generator) line() string { return g.c.lines[g.r.IntN(len(g.c.lines))] }
func (g *generator) path() string { return g.c.paths[g.r.IntN(len(g.c.paths))] }

func (g *generator) lines(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.line())
		b.WriteByte('\n')
	}
	return b.String()
}

// chunk is a turn of about 1.5 to 4 KB made of real lines, and, for one in
// five, the text of an output of 20 to 80 lines it refers to.
func (g *generator) chunk(session, project string, turn int) (ctxkeep.Chunk, string) {
	key := "k" + string(ctxkeep.Sum([]byte(fmt.Sprintf("%s/%d", session, turn))))[:11]
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.r.IntN(300*24)) * time.Hour)
	c := ctxkeep.Chunk{Key: key, SessionID: session, Project: project, Kind: ctxkeep.KindTurn, Turn: turn, Start: at, End: at.Add(time.Minute),
		Prompt: g.line(), Summary: g.line(), Body: g.lines(8 + g.r.IntN(22)),
		Meta: ctxkeep.Meta{Tools: []string{"Bash", "Read"}, FilesModified: []string{g.path()}, FilesRead: []string{g.path(), g.path()},
			Commands: []ctxkeep.Command{{Run: g.line(), Exit: g.r.IntN(2)}}}}
	if g.r.IntN(5) != 0 {
		return c, ""
	}
	id := string(ctxkeep.Sum([]byte(key)))[:12]
	c.Body += "← result: [[ctxkeep:" + id + "]]\n"
	c.Meta.Entries = []string{id}
	return c, g.lines(20 + g.r.IntN(60))
}

type benchQuery struct{ kind, text string }

// queries are what people look for: two distinctive words of a line, an
// error line's words, a file's name.
func (g *generator) queries(n int) []benchQuery {
	var qs []benchQuery
	for len(qs) < n {
		switch len(qs) % 3 {
		case 0:
			var words []string
			for _, w := range strings.Fields(g.line()) {
				if len(w) >= 6 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
					words = append(words, w)
				}
			}
			if len(words) >= 2 {
				qs = append(qs, benchQuery{"words", words[0] + " " + words[len(words)-1]})
			}
		case 1:
			l := g.line()
			if strings.Contains(strings.ToLower(l), "error") || strings.Contains(l, "FAIL") {
				f := strings.Fields(l)
				qs = append(qs, benchQuery{"error line", strings.Join(f[:min(5, len(f))], " ")})
			}
		case 2:
			qs = append(qs, benchQuery{"file name", filepath.Base(g.path())})
		}
	}
	return qs
}
