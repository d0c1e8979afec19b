package clienttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Result is the outcome of one run of the client.
type Result struct {
	Run      int      // 1 for the harness's first run, 2 for the next, …
	Args     []string // the client's arguments
	Stdout   string
	Stderr   string
	ExitCode int
	Duration time.Duration

	Events    Lines  // the stream-json events on stdout, in order
	SessionID string // from the system/init event, else the result event
	Text      string // "result" of the final result event
	IsError   bool   // "is_error" of the final result event
}

// Line is one JSON line: a stream-json event or a transcript entry.
type Line struct {
	Type    string          `json:"type"`
	Subtype string          `json:"subtype"`
	Raw     json.RawMessage `json:"-"` // the whole line
}

// Lines is a sequence of JSON lines.
type Lines []Line

// Decode unmarshals the whole line into v.
func (l Line) Decode(v any) error {
	return json.Unmarshal(l.Raw, v)
}

// Find returns the lines of a type and, unless subtype is "", a subtype.
func (ls Lines) Find(typ, subtype string) Lines {
	var match Lines
	for _, l := range ls {
		if l.Type == typ && (subtype == "" || l.Subtype == subtype) {
			match = append(match, l)
		}
	}
	return match
}

func (r *Result) String() string {
	return fmt.Sprintf("claude run #%d", r.Run)
}

// parseEvents fills in the fields derived from stdout.
func (r *Result) parseEvents() {
	r.Events = parseLines([]byte(r.Stdout))
	for _, e := range r.Events {
		var fields struct {
			SessionID string `json:"session_id"`
			Result    string `json:"result"`
			IsError   bool   `json:"is_error"`
		}
		if e.Decode(&fields) != nil {
			continue
		}
		switch {
		case e.Type == "system" && e.Subtype == "init" && r.SessionID == "":
			r.SessionID = fields.SessionID
		case e.Type == "result":
			r.Text, r.IsError = fields.Result, fields.IsError
			if r.SessionID == "" {
				r.SessionID = fields.SessionID
			}
		}
	}
}

// debugDump describes the run for a failing test's log.
func (r *Result) debugDump() string {
	const limit = 8 << 10
	var b strings.Builder
	fmt.Fprintf(&b, "%s: claude %q\nexit code %d after %v, session %q\n",
		r, r.Args, r.ExitCode, r.Duration.Round(time.Millisecond), r.SessionID)
	fmt.Fprintf(&b, "--- stderr (last %d bytes) ---\n%s\n", limit, tail(r.Stderr, limit))
	fmt.Fprintf(&b, "--- stdout (last %d bytes) ---\n%s", limit, tail(r.Stdout, limit))
	return b.String()
}

// tail returns about the last n bytes of s, cut at a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return "…" + s[start:]
}

// parseLines decodes JSON lines, skipping any line that is not a JSON
// object.
func parseLines(data []byte) Lines {
	var lines Lines
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		raw := bytes.TrimSpace(sc.Bytes())
		var l Line
		if len(raw) == 0 || json.Unmarshal(raw, &l) != nil {
			continue
		}
		l.Raw = bytes.Clone(raw)
		lines = append(lines, l)
	}
	return lines
}
