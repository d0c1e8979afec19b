package codex

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

const userHooks = `{
  "hooks": {
    "PostToolUse": [
      {"hooks": [{"type": "command", "command": "python3 /opt/audit.py", "timeout": 30}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  }
}
`

func testReg() claudecode.Registration {
	return Registration(claudecode.ShellQuote("/opt/my tools/ctxkeep")+" hook", func(string) int { return 10 })
}

// userHome is a Codex home with the user's own hooks, trusted.
func userHome(t *testing.T) (home string, trust []byte) {
	t.Helper()
	home = t.TempDir()
	os.WriteFile(HooksFile(home), []byte(userHooks), 0o600)
	hs, _ := Handlers([]byte(userHooks))
	var entries []Trust
	for _, h := range hs {
		entries = append(entries, Trust{Key: h.Key(HooksFile(home)), Hash: h.Hash()})
	}
	cfg, _, err := setTrust([]byte("model = \"gpt-5.5\"\n"), HooksFile(home), nil, entries)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ConfigFile(home), cfg, 0o600)
	return home, cfg
}

// Install keeps the user's hooks and their trust, adds ctxkeep's for every
// event, trusted with the hash Codex computes; a second install changes
// nothing; uninstall brings both files back to what the user had.
func TestInstallKeepsTheUsersHooks(t *testing.T) {
	home, cfg := userHome(t)
	res, err := Install(home, testReg(), claudecode.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Hooks.Changed || res.Hooks.Backup == "" || len(res.Trusted) != len(Events) {
		t.Fatalf("install: %+v", res)
	}
	st, err := Check(home)
	if err != nil || len(st.Untrusted) != 0 || len(st.Events) != 0 || len(st.Handlers) != len(Events) {
		t.Fatalf("check after install: %+v, %v", st, err)
	}
	data, _ := os.ReadFile(HooksFile(home))
	hs, _ := Handlers(data)
	got, _ := os.ReadFile(ConfigFile(home))
	hashes, _, _ := TrustState(got)
	for _, h := range hs {
		if hashes[h.Key(HooksFile(home))] != h.Hash() {
			t.Errorf("%s %q not trusted", h.Event, h.Command)
		}
		if h.Ours && (h.Command != `'/opt/my tools/ctxkeep' hook --agent codex` || (h.Event == "SessionEnd" && *h.Timeout != 3)) {
			t.Errorf("ctxkeep's %s: %q, timeout %v", h.Event, h.Command, *h.Timeout)
		}
		if !h.Ours && h.Group != 0 {
			t.Errorf("the user's %s moved to group %d", h.Event, h.Group)
		}
	}
	again, err := Install(home, testReg(), claudecode.ApplyOptions{})
	if err != nil || again.Hooks.Changed || again.Config.Changed {
		t.Errorf("second install: %+v, %v", again, err)
	}
	if _, err := Uninstall(home, claudecode.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(HooksFile(home))
	if !sameJSON(after, []byte(userHooks)) {
		t.Errorf("hooks.json after uninstall:\n%s", after)
	}
	if got, _ := os.ReadFile(ConfigFile(home)); string(got) != string(cfg) {
		t.Errorf("config.toml after uninstall:\n%s\nwas:\n%s", got, cfg)
	}
}

// A hook the user added after ctxkeep's, and trusted, keeps its trust when
// uninstall moves it up to ctxkeep's old place.
func TestUninstallMovesTheUsersTrust(t *testing.T) {
	home, _ := userHome(t)
	if _, err := Install(home, testReg(), claudecode.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string][]any
	data, _ := os.ReadFile(HooksFile(home))
	json.Unmarshal(data, &doc)
	doc["hooks"]["SessionStart"] = append(doc["hooks"]["SessionStart"], map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo later"}}})
	data, _ = json.Marshal(doc)
	os.WriteFile(HooksFile(home), data, 0o600)
	later := Handler{Event: "SessionStart", Group: 1, Index: 0, Command: "echo later"}
	cfg, _ := os.ReadFile(ConfigFile(home))
	cfg, _, _ = setTrust(cfg, HooksFile(home), nil, []Trust{{Key: later.Key(HooksFile(home)), Hash: later.Hash()}})
	os.WriteFile(ConfigFile(home), cfg, 0o600)

	res, err := Uninstall(home, claudecode.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	later.Group = 0
	cfg, _ = os.ReadFile(ConfigFile(home))
	hashes, _, _ := TrustState(cfg)
	if len(res.Moved) != 1 || hashes[later.Key(HooksFile(home))] != later.Hash() {
		t.Errorf("moved %+v; trust now %v", res.Moved, hashes)
	}
	// The moved trust is the user's: a later install leaves it.
	if _, err := Install(home, testReg(), claudecode.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, _ = os.ReadFile(ConfigFile(home))
	if hashes, _, _ := TrustState(cfg); hashes[later.Key(HooksFile(home))] != later.Hash() {
		t.Errorf("reinstall dropped the user's moved trust:\n%s", cfg)
	}
}

// Check reports what would keep Codex from running ctxkeep's hooks: an
// event without a handler, a handler whose command changed since it was
// trusted, hooks turned off.
func TestCheckFindsUntrustedHooks(t *testing.T) {
	home, _ := userHome(t)
	if _, err := Install(home, testReg(), claudecode.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(HooksFile(home))
	os.WriteFile(HooksFile(home), []byte(strings.Replace(string(data), `"timeout": 10`, `"timeout": 11`, 1)), 0o600)
	cfg, _ := os.ReadFile(ConfigFile(home))
	os.WriteFile(ConfigFile(home), append([]byte("[features]\nhooks = false\n\n"), cfg...), 0o600)
	st, err := Check(home)
	if err != nil || len(st.Untrusted) != 1 || !st.HooksOff {
		t.Errorf("check: %+v, %v", st, err)
	}
	os.Remove(HooksFile(home))
	if st, _ := Check(home); len(st.Events) != len(Events) || len(st.Handlers) != 0 {
		t.Errorf("without hooks.json: %+v", st)
	}
}

// A dry run says what would change in both files and writes nothing.
func TestInstallDryRun(t *testing.T) {
	home, cfg := userHome(t)
	res, err := Install(home, testReg(), claudecode.ApplyOptions{DryRun: true})
	if err != nil || !res.Hooks.Changed || !res.Config.Changed || !strings.Contains(res.Config.Diff, "trusted_hash") || !strings.Contains(res.Hooks.Diff, "--agent codex") {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(ConfigFile(home)); string(got) != string(cfg) {
		t.Error("dry run wrote config.toml")
	}
	if got, _ := os.ReadFile(HooksFile(home)); string(got) != userHooks {
		t.Error("dry run wrote hooks.json")
	}
	if entries, _ := os.ReadDir(home); len(entries) != 2 {
		t.Errorf("dry run left files: %v", entries)
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
