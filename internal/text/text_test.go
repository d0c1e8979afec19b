package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 10, "abcdefg…"},
		{"ééééé", 6, "é…"}, // never half a character
		{"日本語のテキスト", 8, "日…"},
		{"abc", 2, "…"},
		{"abc", 0, "…"},
	} {
		got := Cut(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || len(got) > max(c.n, len(Ellipsis)) {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestFirstLineAndSquash(t *testing.T) {
	if got := FirstLine("go test ./...\n--- FAIL"); got != "go test ./... …" {
		t.Errorf("FirstLine = %q", got)
	}
	if got := FirstLine("one line"); got != "one line" {
		t.Errorf("FirstLine = %q", got)
	}
	if got := Squash("  a\n\tb   c  ", 100); got != "a b c" {
		t.Errorf("Squash = %q", got)
	}
	if got := Squash(strings.Repeat("word ", 10), 12); got != "word word…" {
		t.Errorf("Squash cut = %q", got)
	}
}

func FuzzCut(f *testing.F) {
	f.Add("日本語のテキスト", 7)
	f.Add("\xff\xfe broken", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 1000
		got := Cut(s, n)
		if len(s) <= n && got != s {
			t.Fatalf("Cut changed text that fits")
		}
		if len(s) > n && (len(got) > max(n, len(Ellipsis)) || !strings.HasSuffix(got, Ellipsis)) {
			t.Fatalf("Cut(%q, %d) = %q", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut split a character: %q", got)
		}
	})
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1498: "1.5 kB", 250_000_000: "250.0 MB", 1_200_000_000: "1.2 GB", -2048: "-2.0 kB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é and → stay":                      "plain text, é and → stay",
		"\x1b[31mFAIL\x1b[0m src/x.test.js":             "FAIL src/x.test.js",
		"\x1b[1;38;5;196mbold red\x1b[m":                "bold red",
		"title\x1b]0;pwned\x07 after":                   "title after",
		"link \x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\": "link text",
		"\u009b31mC1 CSI\u009b0m":                       "C1 CSI",
		"bell\a, nul\x00 go; tab\tstays":                "bell, nul go; tab\tstays",
		"cut at the end \x1b[":                          "cut at the end ",
		"\x1bcreset":                                    "reset",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrintableLikeATerminal(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\r\n":                                "a\nb\n",
		"10%\r55%\r100% done\nnext":                 "100% done\nnext",
		"downloading\r           \r":                "downloading",
		"N\bNA\bAM\bME":                             "NAME",
		"\x1b[2K\r\x1b[1A✓ test passes":             "✓ test passes",
		"dcs \x1bPq#0;2;0;0;0#0~~\x1b\\ after":      "dcs  after",
		"osc to the end of the line \x1b]0;x\nnext": "osc to the end of the line \nnext",
		"latin-1 \xe9t\xe9 is not UTF-8":            "latin-1 \uFFFDt\uFFFD is not UTF-8",
		"\x1b[31m\nline two\x1b[0m\n":               "\nline two\n",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\nx\x1b]8;;u\x07l\x1b]8;;\x07\b")
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Printable(%q) = %q: lines changed", s, got)
		}
		if strings.ContainsAny(got, "\x1b\r\b\a\x00") || strings.Contains(got, "\u009b") {
			t.Fatalf("Printable(%q) = %q: a control remains", s, got)
		}
		if Printable(got) != got {
			t.Fatalf("Printable not idempotent on %q", s)
		}
	})
}

func TestCutStart(t *testing.T) {
	path := "/home/USER/projects/spotter-worktrees/spotter-fum/test/spotter_web/live/session_live_test.exs"
	got := CutStart(path, 60)
	if len(got) > 60 || !strings.HasSuffix(got, "/live/session_live_test.exs") || !strings.HasPrefix(got, Ellipsis+"/") {
		t.Errorf("CutStart = %q (%d bytes)", got, len(got))
	}
	if got := CutStart("/a/b.go", 60); got != "/a/b.go" {
		t.Errorf("short path cut: %q", got)
	}
	if got := CutStart("ééééééééé", 8); !strings.HasPrefix(got, Ellipsis) || len(got) > 8 {
		t.Errorf("CutStart splits a character: %q", got)
	}
}
