package claudecode

import (
	"os"
	"path/filepath"
	"testing"
)

// Uninstalling removes ctxkeep's command files, and the folder when they
// were all it held; a folder with the user's own commands stays.
func TestRemoveSlashCommandsFolder(t *testing.T) {
	cmds := []SlashCommand{{Name: "pin-last", Description: "d", Body: "b"}, {Name: "pin-end", Description: "d", Body: "b"}}
	names := []string{"pin-last", "pin-end"}

	dir := filepath.Join(t.TempDir(), "commands")
	if _, err := WriteSlashCommands(dir, cmds); err != nil {
		t.Fatal(err)
	}
	r, err := RemoveSlashCommands(dir, names, true)
	if err != nil || r.RemovedDir != dir || len(r.Removed) != 2 {
		t.Fatalf("dry run: %+v, %v; want both files and the folder", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pin-last.md")); err != nil {
		t.Fatal("the dry run removed a file")
	}
	if r, err = RemoveSlashCommands(dir, names, false); err != nil || r.RemovedDir != dir {
		t.Fatalf("%+v, %v; want the folder removed", r, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there", dir)
	}

	mine := filepath.Join(t.TempDir(), "commands")
	if _, err := WriteSlashCommands(mine, cmds); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mine, "review.md"), []byte("my own"), 0o644)
	if r, err = RemoveSlashCommands(mine, names, false); err != nil || r.RemovedDir != "" || len(r.Removed) != 2 {
		t.Fatalf("%+v, %v; want the files removed and the folder kept", r, err)
	}
	if _, err := os.Stat(filepath.Join(mine, "review.md")); err != nil {
		t.Error("the user's own command is gone")
	}

	// A folder that was empty before is not ctxkeep's to remove.
	empty := filepath.Join(t.TempDir(), "commands")
	os.Mkdir(empty, 0o755)
	if r, err = RemoveSlashCommands(empty, names, false); err != nil || r.RemovedDir != "" {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Error("an empty folder ctxkeep did not empty was removed")
	}
}

func TestTranscriptDir(t *testing.T) {
	if got, want := TranscriptDir("/h/.claude", "/home/me/my_app.v2"), "/h/.claude/projects/-home-me-my-app-v2"; got != want {
		t.Errorf("TranscriptDir = %q, want %q", got, want)
	}
	if got := ConfigDir("/h", ""); got != "/h/.claude" {
		t.Errorf("ConfigDir = %q", got)
	}
	if got := ConfigDir("/h", "/c"); got != "/c" {
		t.Errorf("ConfigDir with CLAUDE_CONFIG_DIR = %q", got)
	}
}
