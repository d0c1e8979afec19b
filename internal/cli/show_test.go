package cli

import (
	"strings"
	"testing"
)

// --failures prints each failure with its causes, grep-style, failures
// apart; -C adds context; --grep keeps grep's groups.
func TestShowFailuresAndGrep(t *testing.T) {
	data := []byte("=== RUN   TestA\n" +
		"    a_test.go:3: got 1999 want 2000\n" +
		"--- FAIL: TestA (0.00s)\n" +
		"=== RUN   TestB\n" +
		"--- PASS: TestB (0.00s)\n" +
		"FAIL\n" +
		"- API/network failure must not block startup.\n")
	print := func(failures bool, grep string, context int) string {
		var b strings.Builder
		var err error
		if failures {
			err = printFailures(&b, data, context)
		} else {
			o := narrowOptions{grep: grep, context: countFlag{n: context, set: context > 0}}
			err = o.print(&b, data)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
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
		if got := print(tc.failures, tc.grep, tc.context); got != tc.want {
			t.Errorf("%+v:\n%s\nwant:\n%s", tc, got, tc.want)
		}
	}
}
