package transcript_test

import (
	"fmt"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A context monitor keeps a cursor and the usage, and reads only what was
// appended since its last look.
func Example_monitor() {
	var (
		cursor transcript.Cursor
		usage  ctxkeep.Usage
	)
	f, err := transcript.ReadFile("testdata/compact-preserved.jsonl", cursor)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range f.Records {
		transcript.UpdateUsage(&usage, &f.Records[i])
	}
	cursor = f.Next
	fmt.Printf("%d tokens (%d without output) at line %d\n", usage.Tokens, usage.InputTokens, cursor.Line)
	// Output: 5570 tokens (5550 without output) at line 17
}

// The archive reads turns across compactions; replay reads tool calls.
func ExampleTurns() {
	f, err := transcript.ReadFile("testdata/compact-preserved.jsonl", transcript.Cursor{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range transcript.Turns(f.Records) {
		fmt.Printf("%q → %q, compacted %v\n", t.UserText, t.AssistantText, t.Compacted)
		for _, c := range t.Calls {
			fmt.Printf("  %s %s → error %v: %s\n", c.Name, c.Input, c.Result.IsError, c.Result.Text())
		}
	}
	// Output:
	// "run the tests" → "All tests pass.", compacted false
	//   Bash {"command":"go test ./..."} → error false: ok  	example.com/p	0.01s
	// "now fix the lint" → "Lint fixed.", compacted true
	//   Bash {"command":"golangci-lint run"} → error true: main.go:3:1: unused import
}
