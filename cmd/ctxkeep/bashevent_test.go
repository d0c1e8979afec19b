package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// bashevent pre|post FILE ID COMMAND writes a Bash hook event for
// COMMAND, with tool_use_id toolu_ID, in session 0b6f3c8e-… of project
// /p: a PreToolUse in bypassPermissions mode (so that the wrapper's
// choice is the only one), or a PostToolUse whose output has 3,000
// lines, large enough to be swapped out and its command learned.
func bashEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 || args[0] != "pre" && args[0] != "post" {
		ts.Fatalf("usage: bashevent pre|post FILE ID COMMAND")
	}
	home := ts.Getenv("HOME")
	ev := map[string]any{
		"session_id": "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10", "transcript_path": filepath.Join(home, ".claude/projects/-p/0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl"),
		"cwd": "/p", "tool_name": "Bash", "tool_use_id": "toolu_" + args[2],
		"tool_input": map[string]any{"command": args[3], "description": "run it"},
	}
	if args[0] == "pre" {
		ev["hook_event_name"], ev["permission_mode"] = "PreToolUse", "bypassPermissions"
	} else {
		var out strings.Builder
		for i := 1; i <= 3000; i++ {
			fmt.Fprintf(&out, "line %d of a long output %s\n", i, args[2])
		}
		ev["hook_event_name"] = "PostToolUse"
		ev["tool_response"] = map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
	}
	data, err := json.Marshal(ev)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o600))
}
