package excerpt

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// Failures lists each failure with its causes, grep-style, failures
// apart; Context adds context; Grep keeps grep's groups.
func TestFailuresAndGrep(t *testing.T) {
	data := []byte("=== RUN   TestA\n" +
		"    a_test.go:3: got 1999 want 2000\n" +
		"--- FAIL: TestA (0.00s)\n" +
		"=== RUN   TestB\n" +
		"--- PASS: TestB (0.00s)\n" +
		"FAIL\n" +
		"- API/network failure must not block startup.\n")
	for _, tc := range []struct {
		failures bool
		grep     string
		context  int
		want     string
	}{
		{true, "", 0, "2:    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n--\n6:FAIL\n"},
		{true, "", 1, "1-=== RUN   TestA\n2:    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n4-=== RUN   TestB\n--\n5---- PASS: TestB (0.00s)\n6:FAIL\n7-- API/network failure must not block startup.\n"},
		{false, "Test[AB]", 1, "1:=== RUN   TestA\n2-    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n4:=== RUN   TestB\n5:--- PASS: TestB (0.00s)\n6-FAIL\n"},
		{false, "RUN", 0, "1:=== RUN   TestA\n--\n4:=== RUN   TestB\n"},
	} {
		o := Options{Failures: tc.failures, Grep: tc.grep, Context: Count{N: tc.context, Set: tc.context > 0}}
		if err := o.Validate(); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var b strings.Builder
		if err := o.Write(&b, data); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%+v:\n%s\nwant:\n%s", tc, got, tc.want)
		}
	}
}

// Lines, Head and Tail take lines as they are; nothing asked for is the
// exact bytes, a last line without its newline included.
func TestLinesHeadTail(t *testing.T) {
	data := []byte("one\ntwo\nthree\nfour\nfive")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, string(data)},
		{Options{Lines: "2:3"}, "two\nthree\n"},
		{Options{Lines: "4:"}, "four\nfive"},
		{Options{Lines: ":1"}, "one\n"},
		{Options{Lines: "3"}, "three\n"},
		{Options{Lines: "2:99"}, "two\nthree\nfour\nfive"},
		{Options{Head: Count{2, true}}, "one\ntwo\n"},
		{Options{Tail: Count{1, true}}, "five"},
		{Options{Head: Count{4, true}, Tail: Count{2, true}}, "three\nfour\n"},
	} {
		var b strings.Builder
		if err := tc.o.Write(&b, data); err != nil {
			t.Fatalf("%+v: %v", tc.o, err)
		}
		if b.String() != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, b.String(), tc.want)
		}
	}
	var b strings.Builder
	err := Options{Lines: "9:10"}.Write(&b, data)
	if err == nil || errors.Is(err, ErrBadRequest) || err.Error() != "lines 9:10: there are only 5 lines" {
		t.Errorf("lines past the end: %v", err)
	}
}

// Every request that would return something else than what was meant is
// refused, each named as the caller names it: the command line's flags,
// or the parameters as they are.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o        Options
		cli, mcp string
	}{
		{Options{Head: Count{0, true}}, "bad --head 0: want a number of lines, 1 or more", "bad head 0: want a number of lines, 1 or more"},
		{Options{Tail: Count{-3, true}}, "bad --tail -3", "bad tail -3"},
		{Options{Context: Count{3, true}}, "-C needs --grep", "context needs grep"},
		{Options{Grep: "a(", Context: Count{-1, true}}, "bad -C -1", "bad context -1"},
		{Options{Grep: "a("}, "bad --grep: error parsing regexp", "bad grep: error parsing regexp"},
		{Options{Lines: "0:3"}, `bad --lines "0:3": want A:B with 1 <= A`, `bad lines "0:3"`},
		{Options{Lines: "5:3"}, `bad --lines "5:3": want A:B with A <= B`, `bad lines "5:3"`},
		{Options{Lines: "x"}, `bad --lines "x"`, `bad lines "x"`},
		{Options{Lines: "1:3", Grep: "FAIL"}, "choose one of --lines, --grep", "choose one of lines, grep"},
		{Options{Failures: true, Tail: Count{3, true}}, "choose one of --head/--tail, --failures", "choose one of head/tail, failures"},
	} {
		for names, want := range map[string]string{"cli": tc.cli, "mcp": tc.mcp} {
			o := tc.o
			if names == "cli" {
				o.Names = CLINames
			}
			err := o.Validate()
			if !errors.Is(err, ErrBadRequest) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s %+v: %v, want %q", names, tc.o, err, want)
			}
		}
	}
	for _, ok := range []Options{{}, {Failures: true, Context: Count{2, true}}, {Grep: "x", Context: Count{0, true}}, {Head: Count{1, true}, Tail: Count{1, true}}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

// A line number past what an int holds is said to be too large, not "want
// A:B with A <= B"; grep matching nothing, and no failure line, are
// errors (ErrNoMatch), not an empty answer (issue 25.7, 25.9).
func TestNothingToPrint(t *testing.T) {
	data := []byte("one\ntwo\nthree\n")
	err := Options{Lines: "1:999999999999999999999"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "999999999999999999999 is too large to be a line number") {
		t.Errorf("lines overflow: %v", err)
	}
	var b strings.Builder
	err = Options{Grep: "nomatch"}.Write(&b, data)
	if !errors.Is(err, ErrNoMatch) || !errors.Is(err, ctxkeep.ErrNotFound) || !strings.Contains(err.Error(), `none of the 3 lines matches grep "nomatch"`) || b.Len() != 0 {
		t.Errorf("grep matching nothing: %v, %q", err, b.String())
	}
	if err := (Options{Failures: true}).Write(&b, data); !errors.Is(err, ErrNoMatch) {
		t.Errorf("failures of an output without any: %v", err)
	}
}
