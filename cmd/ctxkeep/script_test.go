package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("GOLDEN", golden)
			return os.MkdirAll(filepath.Join(env.WorkDir, "home", "proj"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"bigfile": bigfile,
			"perm":    perm,
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
