// Command bigmcp is a minimal MCP server over stdio for the end-to-end
// tests: one tool, "dump", that returns a large text with failure lines in
// the middle.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // notifications need no answer
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result(req.Method)})
	}
}

func result(method string) any {
	switch method {
	case "initialize":
		return map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "bigmcp", "version": "1.0.0"},
		}
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{
			"name": "dump", "description": "Returns a large report.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}},
		}}}
	case "tools/call":
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": Report()}}}
	}
	return map[string]any{}
}

// Report is the dump tool's text: 40 KB, one failure line at line 600.
func Report() string {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		if i == 600 {
			b.WriteString("ERROR: replica db-7 lost quorum at 12:04:33\n")
			continue
		}
		fmt.Fprintf(&b, "record %04d: status nominal, latency 12ms\n", i)
	}
	return b.String()
}
