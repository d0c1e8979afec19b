package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Custom commands of the Tend scripts (pins, prune, check, purge). Events
// are for session 0b6f3c8e-…, whose transcript path lies in
// $HOME/.claude/projects/-p, as swapevent's.

const scriptSession = "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10"

func scriptEvent(ts *testscript.TestScript, fields map[string]any) map[string]any {
	ev := map[string]any{
		"session_id":      scriptSession,
		"transcript_path": filepath.Join(ts.Getenv("HOME"), ".claude/projects/-p", scriptSession+".jsonl"),
		"cwd":             "/p",
	}
	for k, v := range fields {
		ev[k] = v
	}
	return ev
}

func writeEvent(ts *testscript.TestScript, file string, ev map[string]any) {
	data, err := json.Marshal(ev)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(file), data, 0o600))
}

// outputevent ID LINES FILE writes a PostToolUse event whose Bash output
// (LINES lines, all naming ID) is large enough to be swapped out, for the
// tool call ID; and the output alone to FILE.out.
func outputEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: outputevent ID LINES FILE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var out strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&out, "%s line %d ... ok\n", args[0], i)
	}
	writeEvent(ts, args[2], scriptEvent(ts, map[string]any{
		"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": args[0],
		"tool_input":    map[string]any{"command": "make " + args[0]},
		"tool_response": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
	}))
	ts.Check(os.WriteFile(ts.MkAbs(args[2]+".out"), []byte(out.String()), 0o600))
}

// promptevent FILE PROMPT... writes a UserPromptSubmit event; the words of
// PROMPT are joined by spaces, and \n stands for a line break.
func promptEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: promptevent FILE PROMPT...")
	}
	prompt := strings.ReplaceAll(strings.Join(args[1:], " "), `\n`, "\n")
	writeEvent(ts, args[0], scriptEvent(ts, map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt}))
}

// endevent REASON FILE writes a SessionEnd event.
func endEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: endevent REASON FILE")
	}
	writeEvent(ts, args[1], scriptEvent(ts, map[string]any{"hook_event_name": "SessionEnd", "reason": args[0]}))
}

// treehash DIR FILE writes to FILE one line per file under DIR: its path,
// size and SHA-256. Two listings are equal when nothing under DIR changed
// by a single byte. SQLite's shared-memory file (index.db-shm) is left
// out: it holds no data, only the WAL's index and read marks, which every
// reader writes.
func treeHash(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: treehash DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "-shm") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(&b, "%s %d %x\n", rel, len(data), sha256.Sum256(data))
		return nil
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o600))
}

// damage DIR overwrites every blob (*.zst) under DIR with garbage.
func damage(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: damage DIR")
	}
	n := 0
	err := filepath.WalkDir(ts.MkAbs(args[0]), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".zst") {
			n++
			return os.WriteFile(path, []byte("damaged"), 0o600)
		}
		return err
	})
	ts.Check(err)
	if n == 0 {
		ts.Fatalf("no blob under %s", args[0])
	}
}

// age DURATION FILE... sets the modification time of the files DURATION
// in the past.
func age(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: age DURATION FILE...")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	t := time.Now().Add(-d)
	for _, f := range args[1:] {
		ts.Check(os.Chtimes(ts.MkAbs(f), t, t))
	}
}

// chop FILE removes the newline at the end of FILE: a torn last line, which
// a txtar archive cannot hold.
func chop(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: chop FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.TrimSuffix(string(data), "\n")), 0o600))
}
