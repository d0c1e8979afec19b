package config

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	c := Default()
	for tool, want := range map[string]int{"Read": 8192, "Grep": 4096, "Bash": 6144, "Glob": 2048, "WebFetch": 4096, "mcp__x__y": 4096} {
		if got := c.ThresholdFor(tool); got != want {
			t.Errorf("ThresholdFor(%s) = %d, want %d", tool, got, want)
		}
	}
	if c.Retention != (Retention{Default: 24 * time.Hour, Retrieved: 48 * time.Hour, NeverRetrieved: 6 * time.Hour}) {
		t.Errorf("retention = %+v", c.Retention)
	}
	if c.Limits.TotalBytes != 250_000_000 || c.Limits.HookInputBytes != 16<<20 {
		t.Errorf("limits = %+v", c.Limits)
	}
	if c.View.SummaryLength != 500 || c.View.KeyPatterns != 20 {
		t.Errorf("view = %+v", c.View)
	}
	if c.DeadlineFor("PreCompact") != 30*time.Second || c.DeadlineFor("UserPromptSubmit") != 2*time.Second {
		t.Errorf("deadlines = %v", c.Deadline)
	}
	if c.Disable {
		t.Error("disabled by default")
	}
	if c.Privacy != (Privacy{Redact: true}) {
		t.Errorf("privacy = %+v, want secrets redacted everywhere but in the store", c.Privacy)
	}
}

func TestPrivacyKeys(t *testing.T) {
	user := write(t, "config.toml", "[privacy]\nredact_store = true\n")
	c, _, err := Load(Files{User: user}, []string{"CTXKEEP_PRIVACY_REDACT=false"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Privacy != (Privacy{Redact: false, RedactStore: true}) {
		t.Errorf("privacy = %+v", c.Privacy)
	}
}

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedenceAndSources(t *testing.T) {
	user := write(t, "config.toml", `
[threshold]
Bash = 10000
Read = 9000
mcp__srv__tool = 300
[retention]
default = "12h"
[limits]
total_bytes = "1GB"
`)
	project := write(t, ".ctxkeep.toml", "[threshold]\nBash = 20000\n")
	env := []string{"CTXKEEP_THRESHOLD_READ=7000", "CTXKEEP_DEADLINE_PRECOMPACT=45s", "CTXKEEP_HOME=/x", "PATH=/bin", "CTXKEEP_DISABLE="}
	c, vals, err := Load(Files{User: user, Project: project}, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.ThresholdFor("Bash") != 20000 || c.ThresholdFor("Read") != 7000 || c.ThresholdFor("mcp__srv__tool") != 300 {
		t.Errorf("thresholds = %v", c.Threshold)
	}
	if c.Retention.Default != 12*time.Hour || c.Limits.TotalBytes != 1_000_000_000 || c.DeadlineFor("PreCompact") != 45*time.Second {
		t.Errorf("config = %+v", c)
	}
	want := map[string]string{
		"threshold.Bash":      "20000 project " + project,
		"threshold.Read":      "7000 env CTXKEEP_THRESHOLD_READ",
		"threshold.Grep":      "4096 default",
		"retention.default":   "12h user " + user,
		"limits.total_bytes":  "1GB user " + user,
		"deadline.PreCompact": "45s env CTXKEEP_DEADLINE_PRECOMPACT",
		"disable":             "false default",
	}
	for _, v := range vals {
		if w, ok := want[v.Key]; ok {
			if got := v.Value + " " + v.Source.String(); got != w {
				t.Errorf("%s = %q, want %q", v.Key, got, w)
			}
			delete(want, v.Key)
		}
		if v.Doc == "" {
			t.Errorf("%s has no doc", v.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing values: %v", want)
	}
}

func TestDisable(t *testing.T) {
	for _, v := range []string{"1", "true", "yes", "on"} {
		c, _, err := Load(Files{}, []string{"CTXKEEP_DISABLE=" + v})
		if err != nil || !c.Disable {
			t.Errorf("CTXKEEP_DISABLE=%s: disable=%v err=%v", v, c != nil && c.Disable, err)
		}
	}
	c, _, err := Load(Files{User: write(t, "c.toml", "disable = true\n")}, nil)
	if err != nil || !c.Disable {
		t.Errorf("config switch: %v %v", c, err)
	}
}

func TestBadValuesNameTheKey(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		wantKey    string
		wantMsg    string
	}{
		{"not a number", "[threshold]\nBash = \"lots\"\n", nil, "threshold.Bash", "whole number"},
		{"negative", "[threshold]\nRead = -1\n", nil, "threshold.Read", "out of range"},
		{"bad duration", "[retention]\ndefault = \"tomorrow\"\n", nil, "retention.default", "duration"},
		{"bad size", "[limits]\ntotal_bytes = \"big\"\n", nil, "limits.total_bytes", "size"},
		{"unknown key", "[retention]\nforever = \"1h\"\n", nil, "retention.forever", "unknown key"},
		{"unknown event", "[deadline]\nPostToolUze = \"1s\"\n", nil, "deadline.PostToolUze", "deadline takes"},
		{"float", "[view]\nbudget = 1.5\n", nil, "view.budget", "want a whole number, got 1.5"},
		{"array", "[view]\nbudget = [1]\n", nil, "view.budget", "want a number, a boolean or a string"},
		{"env", "", []string{"CTXKEEP_VIEW_BUDGET=abc"}, "view.budget", "whole number"},
		{"env bool", "", []string{"CTXKEEP_DISABLE=maybe"}, "disable", "true or false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Load(Files{User: write(t, "config.toml", tc.file)}, tc.env)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.Key != tc.wantKey || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("err = %v, want key %s and %q", err, tc.wantKey, tc.wantMsg)
			}
		})
	}
}

func TestSyntaxErrorNamesFile(t *testing.T) {
	p := write(t, "config.toml", "[threshold\nBash=1\n")
	_, _, err := Load(Files{User: p}, nil)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line 1, column") {
		t.Fatalf("err = %v, want it to name %s", err, p)
	}
}

func TestMissingFilesAreSkipped(t *testing.T) {
	if _, _, err := Load(Files{User: "/nonexistent/config.toml", Project: "/nonexistent/.ctxkeep.toml"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestParseAndFormat(t *testing.T) {
	for _, tc := range []struct {
		k    kind
		in   string
		v    int64
		text string
	}{
		{bytesKind, "250MB", 250_000_000, "250MB"},
		{bytesKind, "16MiB", 16 << 20, "16MiB"},
		{bytesKind, "1048576", 1 << 20, "1MiB"},
		{bytesKind, "1234", 1234, "1234"},
		{bytesKind, "64kb", 64_000, "64KB"},
		{bytesKind, "10B", 10, "10"},
		{durationKind, "24h", int64(24 * time.Hour), "24h"},
		{durationKind, "90m", int64(90 * time.Minute), "90m"},
		{durationKind, "1.5s", int64(1500 * time.Millisecond), "1500ms"},
		{durationKind, "2d", int64(48 * time.Hour), "48h"}, // days, as prune --max-age takes them
		{durationKind, "0.5d", int64(12 * time.Hour), "12h"},
		{countKind, "10_000", 10000, "10000"},
	} {
		v, err := parse(tc.k, tc.in)
		if err != nil || v != tc.v || format(tc.k, v) != tc.text {
			t.Errorf("parse(%q) = %d, %v; format = %q; want %d, %q", tc.in, v, err, format(tc.k, v), tc.v, tc.text)
		}
	}
}

func TestLists(t *testing.T) {
	c := Default()
	if !c.Swap.Enabled || c.Swap.Subagents || !c.Wrapper.Enabled || !c.Wrapper.Learn {
		t.Errorf("swap/wrapper defaults: %+v %+v", c.Swap, c.Wrapper)
	}
	if len(c.Swap.PassthroughFiles) == 0 || c.Swap.PassthroughFiles[0] != "CLAUDE.md" || len(c.Wrapper.Commands) < 20 {
		t.Errorf("list defaults: %v / %d commands", c.Swap.PassthroughFiles, len(c.Wrapper.Commands))
	}
	user := write(t, "config.toml", "[swap]\npassthrough_files = [\"*.md\", \"go.sum\"]\n")
	c, vals, err := Load(Files{User: user}, []string{"CTXKEEP_WRAPPER_COMMANDS=go test, make check ,"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Swap.PassthroughFiles, "|") != "*.md|go.sum" || strings.Join(c.Wrapper.Commands, "|") != "go test|make check" {
		t.Fatalf("lists = %q %q", c.Swap.PassthroughFiles, c.Wrapper.Commands)
	}
	for _, v := range vals {
		if v.Key == "swap.passthrough_files" && (v.Value != `["*.md", "go.sum"]` || v.Source.Kind != "user") {
			t.Errorf("value = %+v", v)
		}
	}
	_, _, err = Load(Files{User: write(t, "c.toml", "[swap]\npassthrough_files = \"*.md\"\n")}, nil)
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "swap.passthrough_files" || !strings.Contains(err.Error(), "list of strings") {
		t.Fatalf("err = %v", err)
	}
	_, _, err = Load(Files{User: write(t, "c.toml", "[swap]\npassthrough_files = [1]\n")}, nil)
	if !errors.As(err, &ce) || ce.Key != "swap.passthrough_files" {
		t.Fatalf("err = %v", err)
	}
}

// A repository's .ctxkeep.toml must not reach the store every project
// shares: its retention and limits are ignored (and listed as such), while
// what concerns its own project still applies.
func TestProjectFileCannotSetStoreWideKeys(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, ".ctxkeep.toml")
	os.WriteFile(project, []byte("[limits]\ntotal_bytes = \"1MB\"\n[retention]\ndefault = \"1m\"\n[threshold]\nBash = 20000\n"), 0o600)
	user := filepath.Join(dir, "config.toml")
	os.WriteFile(user, []byte("[retention]\nnever_retrieved = \"2h\"\n"), 0o600)
	cfg, vals, err := Load(Files{User: user, Project: project}, []string{"CTXKEEP_LIMITS_ENTRIES_PER_SESSION=50"})
	if err != nil {
		t.Fatal(err)
	}
	def := Default()
	if cfg.Limits.TotalBytes != def.Limits.TotalBytes || cfg.Retention.Default != def.Retention.Default {
		t.Errorf("the project file changed store-wide settings: total_bytes %d, retention.default %v", cfg.Limits.TotalBytes, cfg.Retention.Default)
	}
	if cfg.ThresholdFor("Bash") != 20000 {
		t.Errorf("the project file's own threshold was not applied: %d", cfg.ThresholdFor("Bash"))
	}
	if cfg.Retention.NeverRetrieved != 2*time.Hour || cfg.Limits.EntriesPerSession != 50 {
		t.Errorf("the user's config and environment must still set store-wide keys: %v, %d", cfg.Retention.NeverRetrieved, cfg.Limits.EntriesPerSession)
	}
	ignored := map[string]bool{}
	for _, v := range vals {
		if v.Source.Kind == "ignored" {
			ignored[v.Key] = v.Source.Where == project
		}
	}
	if !ignored["limits.total_bytes"] || !ignored["retention.default"] || len(ignored) != 2 {
		t.Errorf("ignored keys listed = %v", ignored)
	}
}

// mcp.scope is "project" unless the user widens it; a project's file
// cannot (its repository would give its agent every project), and a value
// other than the two is an error that names the key.
func TestMCPScope(t *testing.T) {
	if got := Default().MCP.Scope; got != MCPScopeProject {
		t.Errorf("default mcp.scope = %q", got)
	}
	dir := t.TempDir()
	project, user := filepath.Join(dir, ".ctxkeep.toml"), filepath.Join(dir, "config.toml")
	os.WriteFile(project, []byte("[mcp]\nscope = \"all\"\n"), 0o600)
	cfg, vals, err := Load(Files{User: user, Project: project}, nil)
	if err != nil || cfg.MCP.Scope != MCPScopeProject {
		t.Errorf("a project file set mcp.scope: %q, %v", cfg.MCP.Scope, err)
	}
	if !slices.ContainsFunc(vals, func(v Value) bool { return v.Key == "mcp.scope" && v.Source.Kind == "ignored" }) {
		t.Errorf("the project file's mcp.scope is not listed as ignored")
	}
	os.WriteFile(user, []byte("[mcp]\nscope = \"all\"\n"), 0o600)
	if cfg, _, err := Load(Files{User: user}, nil); err != nil || cfg.MCP.Scope != MCPScopeAll {
		t.Errorf("the user's mcp.scope = all: %q, %v", cfg.MCP.Scope, err)
	}
	if cfg, _, err := Load(Files{}, []string{"CTXKEEP_MCP_SCOPE=all"}); err != nil || cfg.MCP.Scope != MCPScopeAll {
		t.Errorf("CTXKEEP_MCP_SCOPE=all: %q, %v", cfg.MCP.Scope, err)
	}
	os.WriteFile(user, []byte("[mcp]\nscope = \"everything\"\n"), 0o600)
	if _, _, err := Load(Files{User: user}, nil); err == nil || !strings.Contains(err.Error(), "mcp.scope") {
		t.Errorf("mcp.scope = everything: %v", err)
	}
}

// docs/CONFIG.md has a row for every setting, once, and none for a key
// that does not exist.
func TestConfigDocListsEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CONFIG.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+(?:\\.[A-Za-z0-9_-]+)?)` \\|").FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]]++
	}
	_, vals, err := Load(Files{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, v := range vals {
		known[v.Key] = true
		if rows[v.Key] != 1 {
			t.Errorf("docs/CONFIG.md has %d rows for %s", rows[v.Key], v.Key)
		}
	}
	for k := range rows {
		if !known[k] {
			t.Errorf("docs/CONFIG.md has a row for %s, which is no setting", k)
		}
	}
}
