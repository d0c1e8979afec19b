package shell

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

var update = flag.Bool("update", false, "rewrite testdata/commands.jsonl from the real sessions in shared/data")

// TestCorpusFile keeps testdata/commands.jsonl, the corpus of real
// commands the parser, the wrapper and the learned commands are tested
// on, in step with the public sessions it comes from (shared/data, see
// its PROVENANCE.md): every Bash command of the Claude Code transcripts
// (cc-sessions-spotter, cc-sessions-obra, subagents included) and every
// shell command of the Codex rollouts and TUI log, once each, in the
// order first met. `go test ./internal/shell -run CorpusFile -update`
// rewrites it.
func TestCorpusFile(t *testing.T) {
	got := extractCorpus(t)
	if *update {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // 2>&1 as written
		for _, c := range got {
			enc.Encode(c)
		}
		if err := os.WriteFile("testdata/commands.jsonl", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have := readLines(t, "testdata/commands.jsonl"); !slices.Equal(have, got) {
		t.Fatalf("testdata/commands.jsonl has %d commands, the sessions %d: run with -update", len(have), len(got))
	}
}

func extractCorpus(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{
		"cc-sessions-spotter/*.jsonl", "cc-sessions-spotter/*/subagents/*.jsonl", "cc-sessions-obra/*.jsonl",
		"codex-hooks/rollout_*.jsonl", "codex-tui-session/*.jsonl",
	} {
		m, _ := filepath.Glob(realdata.Path(pattern))
		slices.Sort(m)
		files = append(files, m...)
	}
	if len(files) < 10 {
		realdata.Missing(t, "the public sessions are not in %s", realdata.Path(""))
	}
	var out []string
	seen := map[string]bool{}
	for _, path := range files {
		for _, c := range commandsOf(t, path) {
			if c != "" && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// commandsOf reads the shell commands of one transcript, rollout or TUI
// log, whichever it is.
func commandsOf(t *testing.T, path string) []string {
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out []string
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			Type    string `json:"type"`
			Kind    string `json:"kind"`
			Payload struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
				Msg       struct {
					Type    string   `json:"type"`
					Command []string `json:"command"`
				} `json:"msg"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch {
		case rec.Type == "response_item" && rec.Payload.Type == "function_call":
			switch rec.Payload.Name {
			case "exec_command", "shell", "shell_command", "local_shell":
				var args struct {
					Cmd     string          `json:"cmd"`
					Command json.RawMessage `json:"command"`
				}
				json.Unmarshal([]byte(rec.Payload.Arguments), &args)
				out = append(out, args.Cmd, argvCommand(args.Command))
			}
		case rec.Kind == "codex_event" && rec.Payload.Msg.Type == "exec_command_begin":
			out = append(out, fromArgv(rec.Payload.Msg.Command))
		default:
			var blocks []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Input struct {
					Command string `json:"command"`
				} `json:"input"`
			}
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_use" && b.Name == "Bash" {
					out = append(out, b.Input.Command)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func argvCommand(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	json.Unmarshal(raw, &argv)
	return fromArgv(argv)
}

// fromArgv is the command line of ["bash", "-lc", LINE]; "" for another
// argv.
func fromArgv(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return ""
}
