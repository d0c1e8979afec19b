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
	for _, tc := range []struct {
		o    showOptions
		want string
	}{
		{showOptions{failures: true}, "2:    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n--\n6:FAIL\n"},
		{showOptions{failures: true, context: 1}, "1-=== RUN   TestA\n2:    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n4-=== RUN   TestB\n--\n5---- PASS: TestB (0.00s)\n6:FAIL\n7-- API/network failure must not block startup.\n"},
		{showOptions{grep: "Test[AB]", context: 1}, "1:=== RUN   TestA\n2-    a_test.go:3: got 1999 want 2000\n3:--- FAIL: TestA (0.00s)\n4:=== RUN   TestB\n5:--- PASS: TestB (0.00s)\n6-FAIL\n"},
		{showOptions{grep: "RUN"}, "1:=== RUN   TestA\n--\n4:=== RUN   TestB\n"},
	} {
		var b strings.Builder
		if err := tc.o.print(&b, data); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%+v:\n%s\nwant:\n%s", tc.o, b.String(), tc.want)
		}
	}
}
