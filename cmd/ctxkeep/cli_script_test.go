package main

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// randbytes N FILE writes N bytes of a fixed pseudo-random sequence to
// FILE: a binary file that is anything but a transcript.
func randBytes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: randbytes N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o600))
}

// files N PATTERN checks that N files match PATTERN (a filepath.Glob
// pattern).
func files(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: files N PATTERN")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got, err := filepath.Glob(ts.MkAbs(args[1]))
	ts.Check(err)
	if (len(got) == want) == neg {
		ts.Fatalf("%d files match %s: %v", len(got), args[1], got)
	}
}

// event NAME FILE [KEY=VALUE...] writes a hook event NAME for the scripts'
// session (scriptEvent) with the fields given, as strings.
func event(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: event NAME FILE [KEY=VALUE...]")
	}
	fields := map[string]any{"hook_event_name": args[0]}
	for _, kv := range args[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("event: %q is not KEY=VALUE", kv)
		}
		fields[k] = v
	}
	writeEvent(ts, args[1], scriptEvent(ts, fields))
}

// silentserver VAR starts, for the rest of the script, a TCP server on
// 127.0.0.1 that accepts connections and never answers, and sets VAR to
// its port.
func silentServer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: silentserver VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	ts.Setenv(args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// readevent PATH LINES FILE writes a PostToolUse event of a Read of PATH
// whose content has LINES lines, large enough to be swapped out.
func readEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: readevent PATH LINES FILE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var content strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&content, "  def function_%d(conn, params), do: render(conn, :show, item: %d)\n", i, i)
	}
	writeEvent(ts, args[2], scriptEvent(ts, map[string]any{
		"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": "toolu_read_" + args[1],
		"tool_input": map[string]any{"file_path": args[0]},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": args[0], "content": content.String(),
			"numLines": n, "startLine": 1, "totalLines": n}},
	}))
}
