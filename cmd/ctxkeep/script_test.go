package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// TestScript runs testdata/script/*.txtar against the real binary: each
// script gets its own HOME and calls `ctxkeep` from PATH.
func TestScript(t *testing.T) {
	bin := testbin.Dir(t)
	golden, _ := filepath.Abs("../../internal/hook/testdata/events")
	codexData, _ := filepath.Abs("../../internal/codex/testdata") // real rollouts
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("GOLDEN", golden)
			env.Setenv("CODEXDATA", codexData)
			return os.MkdirAll(filepath.Join(env.WorkDir, "home", "proj"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"bigfile":      bigfile,
			"perm":         perm,
			"swapevent":    swapEvent,
			"bashevent":    bashEvent,   // bashevent_test.go
			"outputevent":  outputEvent, // tend_script_test.go
			"promptevent":  promptEvent,
			"endevent":     endEvent,
			"treehash":     treeHash,
			"damage":       damage,
			"age":          age,
			"chop":         chop,
			"randbytes":    randBytes, // cli_script_test.go
			"files":        files,
			"event":        event, // cli_script_test.go
			"silentserver": silentServer,
			"readevent":    readEvent,
		},
	})
}

// bigfile N FILE writes N MiB of an unterminated JSON string to FILE.
func bigfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: bigfile MiB FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	data := append([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_response":{"stdout":"`), bytes.Repeat([]byte("x"), n<<20)...)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o600))
}

// perm MODE PATH checks the permission bits of PATH (octal, e.g. 0700).
func perm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: perm MODE PATH")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	st, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	if got := uint64(st.Mode().Perm()); (got == want) == neg {
		ts.Fatalf("%s has mode %#o, want %s%#o", args[1], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// swapevent N FILE [ansi] writes a PostToolUse event whose Bash output has
// N lines, line 7 failing (with ansi, in colour as a terminal test runner
// prints it, the last line too), for session 0b6f3c8e-… in $HOME/.claude/projects/-p.
func swapEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 && (len(args) != 3 || args[2] != "ansi") {
		ts.Fatalf("usage: swapevent LINES FILE [ansi]")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var out strings.Builder
	for i := 1; i <= n; i++ {
		if i == 7 && len(args) == 3 {
			out.WriteString("\x1b[31m--- FAIL: TestSeven (0.01s)\x1b[0m\x1b]0;pwned\x07\n")
			continue
		}
		if i == n && len(args) == 3 {
			fmt.Fprintf(&out, "\x1b[32m=== RUN   TestCase%d\x1b[0m\n", i)
			continue
		}
		if i == 7 {
			out.WriteString("--- FAIL: TestSeven (0.01s)\n")
			continue
		}
		fmt.Fprintf(&out, "=== RUN   TestCase%d\n", i)
	}
	home := ts.Getenv("HOME")
	ev := map[string]any{
		"session_id": "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10", "transcript_path": filepath.Join(home, ".claude/projects/-p/0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl"),
		"cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input":    map[string]any{"command": "go test -v ./..."},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
	}
	data, err := json.Marshal(ev)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o600))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]+".out"), []byte(out.String()), 0o600))
}
