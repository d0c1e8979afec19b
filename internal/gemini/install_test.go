package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

func testRegistration() claudecode.Registration {
	return Registration("'/opt/ctx/ctxkeep-hook' hook", func(event string) int {
		if event == "Stop" {
			return 15
		}
		return 7
	})
}

// The user's settings and hooks stay; ctxkeep's come after them, with
// timeouts in milliseconds; uninstall gives the file back byte for byte,
// however it was laid out.
func TestInstallUninstallByteForByte(t *testing.T) {
	for _, original := range []string{
		"", // no file
		"{\n    \"ui\": {\"theme\": \"GitHub\"},\n    \"hooks\": {\"AfterTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}]}\n}\n",
		"{\n  \"general\": {\n    \"vimMode\": true\n  }\n}",
	} {
		home := t.TempDir()
		path := SettingsFile(home)
		if original != "" {
			os.WriteFile(path, []byte(original), 0o600)
		}
		now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
		res, err := Install(home, testRegistration(), claudecode.ApplyOptions{Now: now})
		if err != nil || !res.Changed {
			t.Fatalf("install: %+v %v", res, err)
		}
		data, _ := os.ReadFile(path)
		st, err := Check(home)
		if err != nil || len(st.Handlers) != len(Events) || len(st.Missing) != 0 {
			t.Fatalf("check: %+v %v\n%s", st, err, data)
		}
		for _, h := range st.Handlers {
			want := 7000
			if h.Event == "AfterAgent" {
				want = 15000
			}
			if h.Timeout != want || h.Command != "'/opt/ctx/ctxkeep-hook' hook --agent gemini" {
				t.Errorf("%s: %+v", h.Event, h)
			}
		}
		if strings.Contains(original, "echo mine") && (!strings.Contains(string(data), "echo mine") || !strings.Contains(string(data), `"theme": "GitHub"`)) {
			t.Errorf("the user's settings are gone:\n%s", data)
		}
		if res, err := Install(home, testRegistration(), claudecode.ApplyOptions{Now: now.Add(time.Minute)}); err != nil || res.Changed {
			t.Errorf("second install: %+v %v", res, err)
		}
		if _, err := Uninstall(home, claudecode.ApplyOptions{Now: now.Add(2 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(path)
		want := original
		if original == "" {
			want = "{}\n" // the file install created, emptied
		}
		if err != nil && original != "" || err == nil && string(after) != want && !(original == "" && sameJSON(after, []byte("{}"))) {
			t.Errorf("after uninstall:\n%q\nwant:\n%q", after, want)
		}
	}
}

// A change the user made after install is kept: only ctxkeep's hooks go.
func TestUninstallKeepsLaterChanges(t *testing.T) {
	home := t.TempDir()
	path := SettingsFile(home)
	os.WriteFile(path, []byte("{\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n"), 0o600)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	if _, err := Install(home, testRegistration(), claudecode.ApplyOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "GitHub", "Dracula", 1)), 0o600)
	if _, err := Uninstall(home, claudecode.ApplyOptions{Now: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !strings.Contains(string(after), "Dracula") || strings.Contains(string(after), "ctxkeep") {
		t.Errorf("after uninstall:\n%s", after)
	}
}

// A settings file with comments (the CLI allows them) is not edited.
func TestInstallRefusesComments(t *testing.T) {
	home := t.TempDir()
	original := "{\n  // mine\n  \"ui\": {}\n}\n"
	os.WriteFile(SettingsFile(home), []byte(original), 0o600)
	_, err := Install(home, testRegistration(), claudecode.ApplyOptions{})
	if !errors.Is(err, claudecode.ErrMalformed) {
		t.Errorf("install: %v", err)
	}
	if data, _ := os.ReadFile(SettingsFile(home)); string(data) != original {
		t.Errorf("the file changed:\n%s", data)
	}
	if backups, _ := filepath.Glob(SettingsFile(home) + ".ctxkeep-backup-*"); len(backups) != 0 {
		t.Errorf("backups: %v", backups)
	}
}

func TestCompressionThreshold(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(t.TempDir(), "none.json")}
	getenv := func(k string) string { return env[k] }
	if got := CompressionThreshold(getenv, project); got != 0 {
		t.Errorf("no settings: %v", got)
	}
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	os.WriteFile(SettingsFile(filepath.Join(home, ".gemini")), []byte("{\n  // comment\n  \"model\": {\"compressionThreshold\": 0.3}\n}"), 0o600)
	if got := CompressionThreshold(getenv, project); got != 0.3 {
		t.Errorf("user's: %v", got)
	}
	os.MkdirAll(filepath.Join(project, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(project, ".gemini", "settings.json"), []byte(`{"model": {"compressionThreshold": 0.6}}`), 0o600)
	if got := CompressionThreshold(getenv, project); got != 0.6 {
		t.Errorf("the project's over the user's: %v", got)
	}
}
