package ctxkeep_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ctxkeep/ctxkeep"

// adapters store things; they implement the domain's interfaces and may
// use each other and the small helpers, never a policy or an entry point.
var adapters = []string{"internal/blob", "internal/sqlite", "internal/journal", "internal/store", "internal/postgres"}

// helpers are below everything: files, folders, JSON, text, progress,
// shell command lines, and redaction (which the journal and the log write
// through).
var helpers = []string{"internal/fsx", "internal/migration", "internal/dirs", "internal/rawjson", "internal/fastjson", "internal/logfile", "internal/text", "internal/progress", "internal/shell", "internal/redact"}

// agents are the shapes of one client each (payloads, outputs,
// transcripts, install): they decide nothing, so they import no policy.
var agents = []string{"internal/claudecode", "internal/codex", "internal/gemini", "internal/transcript"}

// policies decide: what is swapped, kept, restored, warned about, pruned.
var policies = []string{"internal/swap", "internal/archive", "internal/keep", "internal/search", "internal/recall", "internal/excerpt",
	"internal/watch", "internal/breakdown", "internal/prune", "internal/purge", "internal/pin", "internal/team", "internal/proof",
	"internal/replay", "internal/learned", "internal/outline"}

// entryPoints are where a run comes in: hook events, commands, MCP calls.
var entryPoints = []string{"internal/hook", "internal/cli", "internal/mcp", "internal/ui"}

// testSupport packages serve tests only, and may reach anything.
var testSupport = []string{"internal/storetest", "internal/testbin", "internal/clienttest", "internal/codextest", "internal/geminitest", "internal/fakeapi",
	"internal/fakeresponses", "internal/fakegemini", "internal/realdata", "internal/corpus", "internal/redact/redacttest", "internal/fsx/fsxtest", "internal/postgres/pgtest"}

// doors are the only packages through which stored outputs are read or
// written: the blob files and the index rows.
var doors = map[string][]string{
	"internal/blob":   {"internal/store"},
	"internal/sqlite": {"internal/store"},
}

// TestArchitecture checks that the dependency arrows point down: the
// domain at the bottom imports nothing of ours, adapters import only the
// domain, helpers and other adapters, only the store reaches blobs and
// index rows, only the composition roots (cmd/) import an adapter, no
// agent imports a policy and no policy an entry point (production code;
// tests may reach further).
func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, module+"/")
			if imp == module {
				dep, ours = "", true
			}
			if !ours {
				continue
			}
			switch {
			case name == "":
				t.Errorf("the domain package imports %s: it must import nothing of ours", imp)
			case slices.Contains(adapters, name) && dep != "" && !slices.Contains(adapters, dep) && !slices.Contains(helpers, dep):
				t.Errorf("adapter %s imports %s, which is not the domain, an adapter or a helper", name, dep)
			}
			if allowed, ok := doors[dep]; ok && !slices.Contains(allowed, name) {
				t.Errorf("%s imports %s: only %s may (the one door to stored outputs)", name, dep, strings.Join(allowed, ", "))
			}
			switch {
			case slices.Contains(adapters, dep) && !slices.Contains(adapters, name) && !composition(name) && !slices.Contains(testSupport, name):
				t.Errorf("%s imports the adapter %s: only the composition roots (cmd/) build adapters; take the root package's interface", name, dep)
			case slices.Contains(agents, name) && slices.Contains(policies, dep):
				t.Errorf("agent %s imports the policy %s: an agent is the shape of a client and decides nothing", name, dep)
			case slices.Contains(policies, name) && slices.Contains(entryPoints, dep):
				t.Errorf("policy %s imports the entry point %s", name, dep)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list found %d packages: the check did not run over the tree", seen)
	}
}

// composition reports whether a package is one of the composition roots:
// an executable's main, or what builds adapters for them (cmd/internal).
func composition(name string) bool { return strings.HasPrefix(name, "cmd/") }

// TestHookExecutable checks that ctxkeep-hook, which the agent starts on
// every hook event, links only what hooks use: every package it links
// costs each hook call its initialisation and page faults. Those below
// serve commands people type, MCP clients or the team archive.
func TestHookExecutable(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/ctxkeep-hook").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	forbidden := []string{
		"github.com/jackc/pgx/v5",                // the team archive
		module + "/internal/postgres",            // the team archive
		"github.com/modelcontextprotocol/go-sdk", // ctxkeep mcp
		"github.com/tiktoken-go/tokenizer",       // ctxkeep context's estimates
		module + "/internal/cli",                 // the commands
		module + "/internal/mcp",
		module + "/internal/ui",
		"html/template", // the web UI and the HTML report
		"net/http",
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("ctxkeep-hook links %s", dep)
			}
		}
	}
	if !slices.Contains(deps, module+"/internal/hook") {
		t.Fatalf("ctxkeep-hook does not link internal/hook: go list says %d packages", len(deps))
	}
}
