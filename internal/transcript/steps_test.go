package transcript

import (
	"fmt"
	"strings"
	"testing"
)

// TestStepBoundaries checks where a turn is cut into steps. want lists the
// steps as "their records", the first step's with the user's text first.
func TestStepBoundaries(t *testing.T) {
	big := strings.Repeat("x", StepBytes)
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"prompt and answer", []string{userLine("u1", "hi"), textLine("a1", "m1", "hello")},
			[]string{"hi|u1 a1"}},
		{"text opens a step", []string{userLine("u1", "go"), textLine("a1", "m1", "looking"), useLine("a2", "m1", "t1", "Read"), resultLine("r1", "t1", "x"),
			textLine("a3", "m2", "now the test"), useLine("a4", "m2", "t2", "Bash"), resultLine("r2", "t2", "ok"), textLine("a5", "m3", "done")},
			[]string{"go|u1 a1 a2 r1", "a3 a4 r2", "a5"}},
		{"calls without text join the step", []string{userLine("u1", "go"), textLine("a1", "m1", "reading the parser"), useLine("a2", "m1", "t1", "Read"), resultLine("r1", "t1", "x"),
			useLine("a3", "m2", "t2", "Read"), resultLine("r2", "t2", "y"), useLine("a4", "m3", "t3", "Grep"), resultLine("r3", "t3", "z")},
			[]string{"go|u1 a1 a2 r1 a3 r2 a4 r3"}},
		{"at most StepRun responses", []string{userLine("u1", "go"), useLine("a1", "m1", "t1", "Read"), resultLine("r1", "t1", "x"),
			useLine("a2", "m2", "t2", "Read"), useLine("a3", "m3", "t3", "Read"), useLine("a4", "m4", "t4", "Read"), useLine("a5", "m5", "t5", "Read")},
			[]string{"go|u1 a1 r1 a2 a3 a4", "a5"}},
		{"at most StepBytes", []string{userLine("u1", "go"), useLine("a1", "m1", "t1", "Read"), resultLine("r1", "t1", big), useLine("a2", "m2", "t2", "Read")},
			[]string{"go|u1 a1 r1", "a2"}},
		{"a result between lines of its response", []string{userLine("u1", "go"), useLine("a1", "m1", "t1", "Bash"), resultLine("r1", "t1", "x"), textLine("a2", "m1", "and"), useLine("a3", "m1", "t2", "Bash")},
			[]string{"go|u1 a1 r1 a2 a3"}},
		{"interrupted", []string{userLine("u1", "go"), textLine("a1", "m1", "working"), userLine("i1", "[Request interrupted by user]")},
			[]string{"go|u1 a1 i1 (interrupted)"}},
		{"no prompt (a read from a step's start)", []string{textLine("a1", "m1", "next"), useLine("a2", "m1", "t1", "Bash"), resultLine("r1", "t1", "x"), textLine("a3", "m2", "then")},
			[]string{"|a1 a2 r1", "a3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turns := Turns(records(t, tt.lines...))
			if len(turns) != 1 {
				t.Fatalf("%d turns", len(turns))
			}
			var got []string
			for i, st := range turns[0].Steps() {
				s := ptrIDs(st.Records)
				if i == 0 {
					s = st.UserText + "|" + s
				} else if st.UserText != "" {
					t.Errorf("step %d has the prompt", i+1)
				}
				if st.Interrupted {
					s += " (interrupted)"
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A step's items are its text and calls in the order they were written,
// each call with its result.
func TestStepItems(t *testing.T) {
	turns := Turns(records(t, userLine("u1", "go"), textLine("a1", "m1", "reading"), useLine("a2", "m1", "t1", "Read"), resultLine("r1", "t1", "x"),
		textLine("a3", "m1", "then testing"), useLine("a4", "m1", "t2", "Bash"), resultLine("r2", "t2", "ok")))
	st := turns[0].Steps()[0]
	var got []string
	for _, it := range st.Items {
		if it.Call < 0 {
			got = append(got, "text:"+it.Text)
			continue
		}
		c := st.Calls[it.Call]
		got = append(got, fmt.Sprintf("%s:%s=%s", c.Name, c.ID, c.Result.Text()))
	}
	if want := "text:reading Read:t1=x text:then testing Bash:t2=ok"; strings.Join(got, " ") != want {
		t.Errorf("items %q, want %q", strings.Join(got, " "), want)
	}
	if st.AssistantText != "reading\n\nthen testing" {
		t.Errorf("assistant text %q", st.AssistantText)
	}
	if off, line := st.Offset(); off != 0 || line != 1 {
		t.Errorf("offset %d line %d", off, line)
	}
}
