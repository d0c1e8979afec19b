package archive

import (
	"slices"
	"testing"
)

func TestTaskNumber(t *testing.T) {
	for in, want := range map[string]string{
		"Task #12 created successfully: Write the limiter": "12",
		"Task created":           "",
		"see #a, then #7 and #8": "7",
		"ends with #":            "",
		"Task #3":                "3",
	} {
		if got := taskNumber(in); got != want {
			t.Errorf("taskNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

// The working state keeps a failure with the first line of its cause, not
// the client's "Exit code" line, nor prose that says "failure".
func TestErrorLinesKeepTheCause(t *testing.T) {
	text := "Exit code 1\n" +
		"- API/network failure must not block startup.\n" +
		"=== RUN   TestRefund\n" +
		"    refund_test.go:42: got 1999 want 2000\n" +
		"        (rounding)\n" +
		"--- FAIL: TestRefund (0.00s)\n" +
		"FAIL\n" +
		"FAIL\texample.com/refund\t0.003s\n"
	want := []string{"refund_test.go:42: got 1999 want 2000", "--- FAIL: TestRefund (0.00s)", "FAIL"}
	if got := errorLines(text, 3); !slices.Equal(got, want) {
		t.Errorf("errorLines = %q, want %q", got, want)
	}
}
