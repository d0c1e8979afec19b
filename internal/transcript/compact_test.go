package transcript

import (
	"errors"
	"strings"
	"testing"
)

// testdata/compact-preserved.jsonl follows claude-code-hooks.md §7.6: an
// auto compaction that kept the last tool round (a3, r2, chained through
// the progress record p2) verbatim before its boundary b1, then the date
// attachment, the summary s1 (the anchor) and one more response.

func TestCompactions(t *testing.T) {
	recs := readFixture(t, "compact-preserved.jsonl")
	comps := Compactions(recs)
	if len(comps) != 1 || comps[0].Boundary.UUID != "b1" || comps[0].Summary.UUID != "s1" {
		t.Fatalf("compactions = %+v", comps)
	}
	if !strings.HasPrefix(comps[0].Summary.Message.Content.Text(), "This session is being continued") {
		t.Errorf("summary text = %q", comps[0].Summary.Message.Content.Text())
	}

	tests := []struct {
		name  string
		lines []string
		want  string // boundary:summary, …
	}{
		{"none", []string{userLine("u", "hi")}, ""},
		{"summary not written yet", []string{boundary("b1", "")}, "b1:"},
		{"two", []string{boundary("b1", ""), summary("s1"), userLine("u", "hi"), boundary("b2", ""), summary("s2")}, "b1:s1 b2:s2"},
		{"summary before any boundary", []string{summary("s0"), boundary("b1", "")}, "b1:"},
		{"subagent boundary", []string{sidechain(boundary("b1", "")), sidechain(summary("s1"))}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Compactions(records(t, tt.lines...)) {
				s := c.Boundary.UUID + ":"
				if c.Summary != nil {
					s += c.Summary.UUID
				}
				got = append(got, s)
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}

func boundary(uuid, segment string) string {
	return `{"type":"system","subtype":"compact_boundary","uuid":"` + uuid + `","compactMetadata":{"trigger":"manual","preTokens":100` + segment + `}}`
}

func summary(uuid string) string {
	return `{"type":"user","isCompactSummary":true,"uuid":"` + uuid + `","message":{"content":"This session is being continued"}}`
}

func TestHistoryAndLive(t *testing.T) {
	recs := readFixture(t, "compact-preserved.jsonl")
	if got := ids(History(recs)); got != "u1 a1 r1 a2 d1 u2 a3 r2 b1 at1 s1 a4" {
		t.Errorf("history = %s", got)
	}
	live, err := Live(recs)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(live); got != "b1 at1 s1 a3 r2 a4" {
		t.Errorf("live = %s, want the preserved a3 r2 after the summary", got)
	}
}

func TestLive(t *testing.T) {
	seg := func(head, anchor, tail string) string {
		return `,"preservedSegment":{"headUuid":"` + head + `","anchorUuid":"` + anchor + `","tailUuid":"` + tail + `"}`
	}
	before := []string{
		userLine("u1", "one"),
		textLine("a1", "m1", "reply"),
		sidechain(textLine("x1", "m2", "subagent")),
		`{"type":"progress","uuid":"p1","parentUuid":"a1"}`,
		`{"type":"user","uuid":"u2","parentUuid":"p1","message":{"content":"two"}}`,
	}
	tests := []struct {
		name  string
		lines []string
		want  string
		err   bool
	}{
		{"no compaction: everything", before, "u1 a1 u2", false},
		{"no preserved segment", append(before[:5:5], boundary("b1", ""), summary("s1"), userLine("u3", "three")), "b1 s1 u3", false},
		{"the last compaction counts", append(before[:5:5], boundary("b1", seg("u1", "s1", "u1")), summary("s1"), boundary("b2", ""), summary("s2")), "b2 s2", false},
		{"a segment through a progress record", append(before[:5:5], boundary("b1", seg("a1", "s1", "u2")), summary("s1"), userLine("u3", "three")), "b1 s1 a1 u2 u3", false},
		{"a segment of one record", append(before[:5:5], boundary("b1", seg("u2", "s1", "u2")), summary("s1")), "b1 s1 u2", false},
		{"tail missing", append(before[:5:5], boundary("b1", seg("a1", "s1", "zz")), summary("s1")), "b1 s1", true},
		{"head not on the chain", append(before[:5:5], boundary("b1", seg("x1", "s1", "u2")), summary("s1")), "b1 s1", true},
		{"anchor missing", append(before[:5:5], boundary("b1", seg("a1", "zz", "u2")), summary("s1")), "b1 s1", true},
		{"a cycle", []string{
			`{"type":"user","uuid":"c1","parentUuid":"c2","message":{"content":"x"}}`,
			`{"type":"user","uuid":"c2","parentUuid":"c1","message":{"content":"y"}}`,
			boundary("b1", seg("zz", "s1", "c2")), summary("s1"),
		}, "b1 s1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live, err := Live(records(t, tt.lines...))
			if got := ids(live); got != tt.want {
				t.Errorf("live = %s, want %s", got, tt.want)
			}
			if (err != nil) != tt.err || err != nil && !errors.Is(err, ErrSegment) {
				t.Errorf("err = %v", err)
			}
		})
	}
}
