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
