package linediff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		context int
		want    string
	}{
		{name: "equal", a: "a\nb\n", b: "a\nb\n", context: 3, want: ""},
		{name: "both empty", a: "", b: "", context: 3, want: ""},
		{
			name: "created", a: "", b: "{\n}\n", context: 3,
			want: "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+{\n+}\n",
		},
		{
			name: "emptied", a: "x\n", b: "", context: 3,
			want: "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n",
		},
		{
			name: "one line changed, context cut at 3",
			a:    "1\n2\n3\n4\n5\n6\n7\n8\n9\n", b: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", context: 3,
			want: "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "insertion at the start",
			a:    "b\nc\n", b: "a\nb\nc\n", context: 1,
			want: "--- a\n+++ b\n@@ -1 +1,2 @@\n+a\n b\n",
		},
		{
			name: "changes far apart make two hunks",
			a:    "a\n1\n2\n3\n4\nb\n", b: "A\n1\n2\n3\n4\nB\n", context: 1,
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+A\n 1\n@@ -5,2 +5,2 @@\n 4\n-b\n+B\n",
		},
		{
			name: "changes 2*context apart share a hunk",
			a:    "a\n1\n2\nb\n", b: "A\n1\n2\nB\n", context: 1,
			want: "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n-b\n+B\n",
		},
		{
			name: "zero context",
			a:    "a\nb\nc\n", b: "a\nB\nc\n", context: 0,
			want: "--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n",
		},
		{
			name: "missing final newline",
			a:    "a\nb", b: "a\nb\n", context: 3,
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "CRLF lines are not LF lines",
			a:    "a\r\n", b: "a\n", context: 3,
			want: "--- a\n+++ b\n@@ -1 +1 @@\n-a\r\n+a\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("a", "b", []byte(tt.a), []byte(tt.b), tt.context)
			if got != tt.want {
				t.Errorf("Unified(%q, %q, %d):\n got %q\nwant %q", tt.a, tt.b, tt.context, got, tt.want)
			}
		})
	}
}

// TestDiffIsShortestAndCorrect checks random inputs against two facts: the
// edits rebuild both texts, and they are as few as the longest common
// subsequence allows.
func TestDiffIsShortestAndCorrect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randomLines := func() []string {
		lines := make([]string, rng.IntN(12))
		for i := range lines {
			lines[i] = string(rune('a'+rng.IntN(3))) + "\n"
		}
		return lines
	}
	for range 2000 {
		a, b := randomLines(), randomLines()
		edits := diff(a, b)

		var gotA, gotB []string
		changes := 0
		for _, e := range edits {
			if e.op != '+' {
				gotA = append(gotA, e.text)
			}
			if e.op != '-' {
				gotB = append(gotB, e.text)
			}
			if e.op != ' ' {
				changes++
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("diff(%q, %q) does not rebuild the inputs: %v", a, b, edits)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("diff(%q, %q) has %d changes, want %d", a, b, changes, want)
		}
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
