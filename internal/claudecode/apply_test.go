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

// A link to nothing is refused, and nothing is created at its end: the
// link is the user's set-up (a dotfiles checkout that moved), not a place
// to make a settings file appear.
func TestApplyFileRefusesDanglingSymlink(t *testing.T) {
	root := t.TempDir()
	link := filepath.Join(root, "settings.json")
	target := filepath.Join(root, "nonexistent", "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	before := listDir(t, root)
	for _, dry := range []bool{false, true} {
		_, err := ApplyFile(link, install, ApplyOptions{DryRun: dry})
		if !errors.Is(err, ErrDanglingLink) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), target) {
			t.Errorf("dry run %v: error %v, want ErrDanglingLink naming the link and its target", dry, err)
		}
	}
	if after := listDir(t, root); !maps.Equal(before, after) {
		t.Errorf("folder changed:\nbefore %v\nafter  %v", before, after)
	}
}

// A read-only file is the user's way of saying "leave it": refused, with
// the way to allow the edit, and left as it was.
func TestApplyFileRefusesReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	writeFile(t, path, userSettings, 0o444)
	before := listDir(t, dir)
	_, err := ApplyFile(path, install, ApplyOptions{Now: testNow})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "chmod u+w") {
		t.Errorf("error %v, want ErrReadOnly naming the file and the way out", err)
	}
	if after := listDir(t, dir); !maps.Equal(before, after) {
		t.Errorf("folder changed:\nbefore %v\nafter  %v", before, after)
	}
}

// A write that lands between ctxkeep's read and its rename is found just
// before the rename: the edit starts again from the new content, so the
// other writer's change is kept, and ctxkeep's too.
func TestApplyFileStartsAgainWhenTheFileChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, userSettings, 0o600)
	other := clientWriter{path: path} // no lock: as the client writes project settings
	calls := 0
	res, err := ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		calls++
		if calls == 2 { // after the look without the lock: the locked edit
			if err := other.add("writer-during-edit"); err != nil {
				t.Fatal(err)
			}
		}
		return install(b)
	}, ApplyOptions{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || writerKeys(t, path) != 1 {
		t.Errorf("%d edits, writer's key kept: %v; want 3 edits and the key kept", calls, writerKeys(t, path) == 1)
	}
	data, _ := os.ReadFile(path)
	if found, _ := FindHooks(data); len(found) != len(testReg.Hooks) {
		t.Errorf("ctxkeep's hooks: %d, want %d", len(found), len(testReg.Hooks))
	}
	// The one backup is of what the final edit replaced: the other
	// writer's version.
	backups, _ := filepath.Glob(path + ".ctxkeep-backup-*")
	if len(backups) != 1 || backups[0] != res.Backup {
		t.Fatalf("backups %v, reported %q", backups, res.Backup)
	}
	if b, _ := os.ReadFile(res.Backup); !strings.Contains(string(b), "writer-during-edit") {
		t.Errorf("the backup is not the version replaced:\n%s", b)
	}
}

// A file that changes under every try is given up on, with an error that
// says so, and what the other writer wrote last is what stays.
func TestApplyFileGivesUpOnAFileThatKeepsChanging(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	writeFile(t, path, userSettings, 0o600)
	other := clientWriter{path: path}
	n := 0
	_, err := ApplyFile(path, func(b []byte) ([]byte, bool, error) {
		n++
		if err := other.add(fmt.Sprint("writer-", n)); err != nil {
			t.Fatal(err)
		}
		return install(b)
	}, ApplyOptions{Now: testNow})
	if !errors.Is(err, ErrChangedMeanwhile) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want ErrChangedMeanwhile naming the file", err)
	}
	if got := writerKeys(t, path); got != n {
		t.Errorf("the file holds %d of the writer's %d keys", got, n)
	}
	data, _ := os.ReadFile(path)
	if found, _ := FindHooks(data); len(found) != 0 {
		t.Errorf("ctxkeep's hooks were written: %v", found)
	}
	if m, _ := filepath.Glob(path + ".ctxkeep-backup-*"); len(m) != 0 {
		t.Errorf("backups left behind: %v", m)
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock was not released: %v", err)
	}
}

// ctxkeep waits for the client's lock, and reads the file only once it has
// it: what the holder wrote is kept.
func TestApplyFileWaitsForTheClientsLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, userSettings, 0o600)
	lock := path + ".lock"
	if err := os.Mkdir(lock, 0o755); err != nil { // the client holds it
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := ApplyFile(path, install, ApplyOptions{Now: testNow})
		done <- err
	}()
	// The holder writes while ctxkeep waits (or has not started yet:
	// either way ctxkeep cannot have read the file), then lets go.
	if err := (clientWriter{path: path}).add("writer-holding-the-lock"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if writerKeys(t, path) != 1 {
		t.Error("the lock holder's write was lost")
	}
}

// A lock left by a process that died (not refreshed for longer than the
// client's stale time) is taken over, then removed.
func TestApplyFileTakesOverAnAbandonedLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	lock := path + ".lock"
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyFile(path, install, ApplyOptions{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, installed, 0o600)
	if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock is still there: %v", err)
	}
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
