package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// The warnings' incremental reader follows a rollout through its dialect:
// the compaction counted, the usage the last response's; and a large
// rollout read for the first time from its end gives the same usage.
func TestProgressReadsRollouts(t *testing.T) {
	data, err := os.ReadFile("testdata/rollout_compact.trimmed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	os.WriteFile(path, data, 0o600)
	var p watch.Progress
	if err := p.AdvanceIn(path, Usage{}, watch.DefaultReadLimits); err != nil {
		t.Fatal(err)
	}
	if p.Compactions != 1 || p.Usage.Tokens != 1050 || p.Usage.Window != 258400 || p.Usage.Model != "gpt-5.5" || p.Usage.Compacted {
		t.Errorf("forward: %+v", p)
	}
	// Over a megabyte: read backwards from the end.
	filler := `{"timestamp":"2026-11-23T17:52:06.700Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` +
		strings.Repeat("x", 2<<20) + `"}]}}` + "\n"
	big := filepath.Join(t.TempDir(), "big.jsonl")
	os.WriteFile(big, append([]byte(filler), data...), 0o600)
	var q watch.Progress
	if err := q.AdvanceIn(big, Usage{}, watch.DefaultReadLimits); err != nil {
		t.Fatal(err)
	}
	if q.Usage != p.Usage {
		t.Errorf("from the end: %+v, forward: %+v", q.Usage, p.Usage)
	}
	// More lines appended are read from the cursor.
	more := `{"timestamp":"2026-11-23T17:53:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":9000,"output_tokens":10,"total_tokens":9010},"model_context_window":258400}}}` + "\n"
	f, _ := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(more)
	f.Close()
	if err := q.AdvanceIn(big, Usage{}, watch.DefaultReadLimits); err != nil || q.Usage.Tokens != 9010 {
		t.Errorf("after an append: %+v, %v", q.Usage, err)
	}
}

func TestThresholds(t *testing.T) {
	if w, auto := Thresholds(258400, 0); w != 258400 || auto != 244800 {
		t.Errorf("default: %d, %d", w, auto)
	}
	if l := watch.Fixed(Thresholds(258400, 0)); !l.AutoCompactOn || l.OfThreshold(244800) != 100 {
		t.Errorf("as watch's limits: %+v", l)
	}
	if _, auto := Thresholds(258400, 5000); auto != 5000 {
		t.Errorf("configured lower: %d", auto)
	}
	if _, auto := Thresholds(258400, 900000); auto != 244800 {
		t.Errorf("configured higher only lowers: %d", auto)
	}
}

func TestAutoCompactLimit(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		toml string
		want int64
	}{
		{"model = \"gpt-5.5\"\nmodel_auto_compact_token_limit = 5_000 # low\n", 5000},
		{"[profiles.x]\nmodel_auto_compact_token_limit = 5000\n", 0},
		{"", 0},
	} {
		os.WriteFile(ConfigFile(home), []byte(c.toml), 0o600)
		if got := AutoCompactLimit(home); got != c.want {
			t.Errorf("%q: %d, want %d", c.toml, got, c.want)
		}
	}
}

// The hook reads a shell call's exit status and the sandbox from the
// rollout's last lines.
func TestHookTimeLookups(t *testing.T) {
	const rollout = "testdata/rollout_multi_tools.trimmed.jsonl"
	if code, ok := ExitCode(rollout, "call_mock_1"); !ok || code != 0 {
		t.Errorf("exit code of call_mock_1: %d, %v", code, ok)
	}
	if _, ok := ExitCode(rollout, "call_nope"); ok {
		t.Error("exit code of a call that is not there")
	}
	if !Unsandboxed(rollout) {
		t.Error("danger-full-access read as sandboxed")
	}
	data, _ := os.ReadFile(rollout)
	sandboxed := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(sandboxed, bytes.ReplaceAll(data, []byte(`"sandbox_policy": {"type": "danger-full-access"}`), []byte(`"sandbox_policy": {"type": "workspace-write"}`)), 0o600)
	if Unsandboxed(sandboxed) {
		t.Error("workspace-write read as unsandboxed")
	}
}

// The context report of a rollout: the usage at each response, the
// compaction with the context before it, the usage now.
func TestReadReport(t *testing.T) {
	r, err := ReadReport("testdata/rollout_compact.trimmed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "01a20989-5c41-7541-b492-fbc027bbe97b" || r.CLIVersion != "0.169.0" || r.Model != "gpt-5.5" {
		t.Errorf("meta %+v", r.Meta)
	}
	if len(r.Compactions) != 1 || r.Compactions[0].Before != 8050 || r.Peak != 8050 || r.Usage.Tokens != 1050 {
		t.Errorf("report %+v", r)
	}
	if r.Responses != 3 || len(r.Timeline) != 3 {
		t.Errorf("%d responses: %+v", r.Responses, r.Timeline)
	}
}
