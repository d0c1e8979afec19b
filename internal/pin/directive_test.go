package pin

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

func TestParseDirectives(t *testing.T) {
	cases := []struct {
		prompt string
		want   []Directive
		only   bool
	}{
		{"ccm:pin last", []Directive{{Target: Last, Level: ctxkeep.PinSoft}}, true},
		{"ccm:pin last level=soft reason=\"important build output\"",
			[]Directive{{Target: Last, Level: ctxkeep.PinSoft, Reason: "important build output"}}, true},
		{"ccm:pin next level=hard", []Directive{{Target: Next, Level: ctxkeep.PinHard}}, true},
		{"ccm:pin next hard", []Directive{{Target: Next, Level: ctxkeep.PinHard}}, true},
		{"  ccm:pin start level=soft  ", []Directive{{Target: Start, Level: ctxkeep.PinSoft}}, true},
		{"ccm:pin end", []Directive{{Target: End, Level: ctxkeep.PinSoft}}, true},
		{"ccm:pin LAST Level=HARD", []Directive{{Target: Last, Level: ctxkeep.PinHard}}, true},
		{"ccm:pin last level=none", []Directive{{Target: Last, Level: ctxkeep.PinNone}}, true},
		{"ccm:pin 3f2a9c reason=keep", []Directive{{Target: ByID, ID: "3f2a9c", Level: ctxkeep.PinSoft, Reason: "keep"}}, true},
		{`ccm:pin last reason='it said "no"'`, []Directive{{Target: Last, Level: ctxkeep.PinSoft, Reason: `it said "no"`}}, true},
		{`ccm:pin last reason="a \"quoted\" \\ word"`, []Directive{{Target: Last, Level: ctxkeep.PinSoft, Reason: `a "quoted" \ word`}}, true},
		{"run the tests\nccm:pin next\nand fix them",
			[]Directive{{Target: Next, Level: ctxkeep.PinSoft, Line: 2}}, false},
		{"ccm:pin start\n\nccm:pin end\n", []Directive{{Target: Start, Level: ctxkeep.PinSoft}, {Target: End, Level: ctxkeep.PinSoft, Line: 3}}, true},
		// Slash commands: the client hands hooks the command as typed.
		{"/pin-last", []Directive{{Target: Last, Level: ctxkeep.PinSoft}}, true},
		{"/pin-last hard reason=\"the failing run\"", []Directive{{Target: Last, Level: ctxkeep.PinHard, Reason: "the failing run"}}, true},
		{"/pin-next level=hard", []Directive{{Target: Next, Level: ctxkeep.PinHard}}, true},
		{" /pin-start\n", []Directive{{Target: Start, Level: ctxkeep.PinSoft}}, true},
		{"/pin-end", []Directive{{Target: End, Level: ctxkeep.PinSoft}}, true},
		{"/ctxkeep:pin-last hard", []Directive{{Target: Last, Level: ctxkeep.PinHard}}, true}, // installed as a plugin
		// Words for the model after the options (issue 25.4): the prompt goes on.
		{`ccm:pin last hard reason="deploy log" please continue`,
			[]Directive{{Target: Last, Level: ctxkeep.PinHard, LevelSet: true, Reason: "deploy log", Rest: "please continue"}}, false},
		{"ccm:pin last hard and don't stop", []Directive{{Target: Last, Level: ctxkeep.PinHard, LevelSet: true, Rest: "and don't stop"}}, false},
		{`/pin-last reason="the log" then go on`, []Directive{{Target: Last, Level: ctxkeep.PinSoft, Reason: "the log", Rest: "then go on"}}, false},
		// Not directives.
		{"what does ccm:pin do?", nil, false},
		{"ccm:pinned last", nil, false},
		{"/pin-lastly", nil, false},
		{"/compact", nil, false},
		{"/other:pin-last", nil, false},
		{"", nil, false},
	}
	for _, c := range cases {
		got, only, err := Parse(c.prompt)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.prompt, err)
			continue
		}
		if only != c.only || len(got) != len(c.want) {
			t.Errorf("Parse(%q) = %+v, only %t; want %+v, only %t", c.prompt, got, only, c.want, c.only)
			continue
		}
		for i, d := range got {
			w := c.want[i]
			if w.Line == 0 {
				w.Line = 1
			}
			if d.Target != w.Target || d.ID != w.ID || d.Level != w.Level || d.Reason != w.Reason || d.Line != w.Line || d.Rest != w.Rest ||
				(w.LevelSet && !d.LevelSet) {
				t.Errorf("Parse(%q)[%d] = %+v, want %+v", c.prompt, i, d, w)
			}
		}
	}
}

// A malformed directive is an error naming its line, and nothing of the
// prompt is pinned: Parse returns no directive at all, not even the good
// ones.
func TestParseRejectsMalformedDirectives(t *testing.T) {
	cases := []struct {
		prompt, msg string
		only        bool
	}{
		{"ccm:pin", "say what to pin", true},
		{"ccm:pin lats", `unknown target "lats"`, true},
		{"ccm:pin last level=medium", `bad pin level "medium"`, true},
		{"ccm:pin last lvl=hard", `unknown option "lvl"`, true},
		{"ccm:pin last level=", "level= has no value", true},
		{`ccm:pin last reason="unterminated`, `missing closing "`, true},
		{"ccm:pin last important output", `unexpected "important"`, true},
		{"ccm:pin last hard level=soft", "level given twice", true},
		{"ccm:pin end reason=done", "end takes no level or reason", true},
		{`ccm:pin last reason="a"b`, "no space after the closing quote", true},
		{"ccm:pin level=hard", "say what to pin before level=", true},
		{"ccm:pin last\nccm:pin nxt", `line 2 "ccm:pin nxt": unknown target "nxt"`, true},
		{"fix the bug\nccm:pin last levl=hard", `unknown option "levl"`, false},
		{"/pin-last medium", `unexpected "medium"`, true},
		{"/pin-end now", "end takes no level or reason", true},
		{"ccm:pin last hrad please", `unknown level "hrad": did you mean hard?`, true},
		{"ccm:pin last soft reason=x sfot", `unknown level "sfot": did you mean soft?`, true},
	}
	for _, c := range cases {
		ds, only, err := Parse(c.prompt)
		var syn *SyntaxError
		if !errors.As(err, &syn) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q) error = %v, want one containing %q", c.prompt, err, c.msg)
		}
		if ds != nil || only != c.only {
			t.Errorf("Parse(%q) = %+v, only %t; want nothing, only %t", c.prompt, ds, only, c.only)
		}
	}
}

func TestMentions(t *testing.T) {
	for prompt, want := range map[string]bool{
		"ccm:pin last": true, "x\nccm:pin next": true, "/pin-last": true, "  /pin-end": true, "/ctxkeep:pin-next": true,
		"pin the last output": false, "/compact": false, "": false,
	} {
		if got := Mentions(prompt); got != want {
			t.Errorf("Mentions(%q) = %t", prompt, got)
		}
	}
	// Everything Parse finds, Mentions lets through.
	for _, p := range []string{"ccm:pin last", "/pin-last hard", "a\n ccm:pin end"} {
		if ds, _, _ := Parse(p); len(ds) > 0 && !Mentions(p) {
			t.Errorf("Mentions(%q) = false for a prompt with directives", p)
		}
	}
}
