package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 21, 22, 10, 0, 0, time.FixedZone("CET", 3600))

const testBackupSuffix = ".ctxkeep-backup-20261121T211000Z"

func install(b []byte) ([]byte, bool, error) { return AddHooks(b, testReg) }

func TestApplyFileCreatesMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".claude", "settings.json")
	res, err := ApplyFile(path, install, ApplyOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !res.Created || res.Backup != "" || res.Path != path {
		t.Errorf("result %+v, want changed and created, no backup", res)
	}
	assertFile(t, path, installed, 0o600)
}

func TestApplyFileBacksUpAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	writeFile(t, path, userSettings, 0o640)

	res, err := ApplyFile(path, install, ApplyOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Created || res.Backup != path+testBackupSuffix {
		t.Errorf("result %+v, want changed with backup %s", res, path+testBackupSuffix)
	}
	assertFile(t, res.Backup, userSettings, 0o640)
	after, _, _ := AddHooks([]byte(userSettings), testReg)
	assertFile(t, path, string(after), 0o640)

	// Uninstalling in the same second must not overwrite the first backup.
	res, err = ApplyFile(path, RemoveHooks, ApplyOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backup != path+testBackupSuffix+"-2" {
		t.Errorf("second backup %q", res.Backup)
	}
	assertFile(t, path+testBackupSuffix, userSettings, 0o640)
	assertFile(t, res.Backup, string(after), 0o640)
	assertFile(t, path, userSettings, 0o640)
}

func TestApplyFileWritesNothing(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edit    func([]byte) ([]byte, bool, error)
		dryRun  bool
		wantErr string
	}{
		{name: "unchanged", content: installed, edit: install},
		{name: "dry run", content: userSettings, edit: install, dryRun: true},
		{name: "malformed", content: "{\n  \"hooks\": [\n", edit: install, wantErr: "malformed settings: invalid JSON at line 3"},
		{name: "hooks not an object", content: `{"hooks": []}`, edit: RemoveHooks, wantErr: `"hooks" is an array`},
		{name: "editor fails", content: "{}", edit: func([]byte) ([]byte, bool, error) {
			return []byte("partial"), true, errors.New("boom")
		}, wantErr: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			writeFile(t, path, tt.content, 0o644)
			before := listDir(t, dir)

			res, err := ApplyFile(path, tt.edit, ApplyOptions{DryRun: tt.dryRun, Now: testNow})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one naming %s and containing %q", err, path, tt.wantErr)
			}
			if res.Backup != "" {
				t.Errorf("backup %q reported", res.Backup)
			}
			if after := listDir(t, dir); !maps.Equal(before, after) {
				t.Errorf("folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestApplyFileDryRunDiff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, "{\n  \"model\": \"x\"\n}\n", 0o600)
	reg := Registration{Command: "ctxkeep hook", Hooks: []HookSpec{{Event: "Stop"}}}
	res, err := ApplyFile(path, func(b []byte) ([]byte, bool, error) { return AddHooks(b, reg) }, ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`--- %[1]s
+++ %[1]s (after)
@@ -1,3 +1,15 @@
 {
-  "model": "x"
+  "model": "x",
+  "hooks": {
+    "Stop": [
+      {
+        "hooks": [
+          {
+            "type": "command",
+            "command": "ctxkeep hook"
+          }
+        ]
+      }
+    ]
+  }
 }
`, path)
	if !res.Changed || res.Diff != want {
		t.Errorf("changed=%v, diff:\n%s\nwant:\n%s", res.Changed, res.Diff, want)
	}
}

func TestApplyFileWritesThroughSymlink(t *testing.T) {
	root := t.TempDir()
	dotfiles := filepath.Join(root, "dotfiles", "claude")
	claudeDir := filepath.Join(root, "home", ".claude")
	for _, d := range []string{dotfiles, claudeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dotfiles, "settings.json")
	writeFile(t, target, userSettings, 0o644)
	link := filepath.Join(claudeDir, "settings.json")
	const dest = "../../dotfiles/claude/settings.json"
	if err := os.Symlink(dest, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}

	res, err := ApplyFile(link, install, ApplyOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(link); err != nil || got != dest {
		t.Errorf("link now points to %q (%v), want %q", got, err, dest)
	}
	after, _, _ := AddHooks([]byte(userSettings), testReg)
	assertFile(t, target, string(after), 0o644)
	if res.Backup != link+testBackupSuffix {
		t.Errorf("backup %q, want it beside the link", res.Backup)
	}
	assertFile(t, res.Backup, userSettings, 0o644)
	if entries, _ := os.ReadDir(dotfiles); len(entries) != 1 {
		t.Errorf("the dotfiles folder holds %d entries, want only settings.json", len(entries))
	}
}

func TestApplyFileCreatesDanglingSymlinkTarget(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(root, "settings.json")
	target := filepath.Join(root, "repo", "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	res, err := ApplyFile(link, install, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created {
		t.Errorf("result %+v, want created", res)
	}
	assertFile(t, target, installed, 0o600)
}

func writeFile(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func assertFile(t *testing.T, path, want string, perm fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s holds:\n%s\nwant:\n%s", path, got, want)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != perm {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), perm)
	}
}

// listDir describes every entry under dir: name, mode, time and content.
func listDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	list := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		content, _ := os.ReadFile(path)
		list[path] = fmt.Sprintf("%v %v %q", info.Mode(), info.ModTime().UnixNano(), content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// Backups do not pile up: the oldest (the file before ctxkeep first
// changed it) and the newest are kept, the ones between removed.
func TestApplyFileKeepsFewBackups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var made []string
	for i := range 12 {
		edit := func(b []byte) ([]byte, bool, error) { return []byte(fmt.Sprintf("{\"n\": %d}\n", i)), true, nil }
		// Two runs within the same second: the second backup gets a counter.
		res, err := ApplyFile(path, edit, ApplyOptions{Now: testNow.Add(time.Duration(i/2) * time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, res.Backup)
	}
	left, _ := filepath.Glob(path + ".ctxkeep-backup-*")
	want := []string{made[0], made[10], made[11]}
	slices.Sort(left)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("backups left:\n%s\nwant the first and the last two:\n%s", strings.Join(left, "\n"), strings.Join(want, "\n"))
	}
	if data, _ := os.ReadFile(made[0]); string(data) != "{}\n" {
		t.Errorf("the first backup holds %q, want the original file", data)
	}
}
