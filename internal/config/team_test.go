package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The team keys come from the user's file and CTXKEEP_TEAM_*; the DSN is
// a string, CTXKEEP_TEAM_DSN overrides the file.
func TestTeamKeys(t *testing.T) {
	def := Default().Team
	if def.DSN != "" || def.SyncAfterSession || def.PushOutputs || def.MaxOutputBytes != 1_000_000 || def.SyncTimeout != 5*time.Minute {
		t.Errorf("team defaults = %+v; want no server, nothing pushed beyond the turns, no background sync", def)
	}
	user := write(t, "config.toml", "[team]\ndsn = \"host=db.example dbname=team sslmode=verify-full\"\npush_outputs = true\nmax_output_bytes = \"64KiB\"\n")
	c, _, err := Load(Files{User: user}, []string{"CTXKEEP_TEAM_SYNC_AFTER_SESSION=true"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Team.DSN != "host=db.example dbname=team sslmode=verify-full" || !c.Team.PushOutputs || c.Team.MaxOutputBytes != 64<<10 || !c.Team.SyncAfterSession {
		t.Errorf("team = %+v", c.Team)
	}
	c, vals, err := Load(Files{User: user}, []string{"CTXKEEP_TEAM_DSN=postgres://alice@other/team"})
	if err != nil || c.Team.DSN != "postgres://alice@other/team" {
		t.Fatalf("CTXKEEP_TEAM_DSN: %q, %v", c.Team.DSN, err)
	}
	for _, v := range vals {
		if v.Key == "team.dsn" && (v.Source.Kind != "env" || v.Value != c.Team.DSN) {
			t.Errorf("team.dsn listed as %+v", v)
		}
	}
}

// A DSN with a password is refused wherever it comes from: ctxkeep never
// keeps one.
func TestTeamDSNWithPasswordRefused(t *testing.T) {
	for _, dsn := range []string{"postgres://alice:s3cret@db/team", "postgresql://alice@db/team?password=s3cret",
		"host=db user=alice password=s3cret", "host=db PASSWORD = s3cret"} {
		user := write(t, "config.toml", "[team]\ndsn = '"+dsn+"'\n")
		_, _, err := Load(Files{User: user}, nil)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "team.dsn" || !strings.Contains(err.Error(), "pgpass") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("dsn %q in the file: %v; want a refusal naming team.dsn and ~/.pgpass, without the password", dsn, err)
		}
		if _, _, err := Load(Files{}, []string{"CTXKEEP_TEAM_DSN=" + dsn}); !errors.As(err, &ce) {
			t.Errorf("dsn %q in CTXKEEP_TEAM_DSN: %v; want a refusal", dsn, err)
		}
	}
}

// A repository's file cannot point the user's team archive elsewhere, nor
// widen what is pushed.
func TestProjectFileCannotSetTeamKeys(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, ".ctxkeep.toml")
	os.WriteFile(project, []byte("[team]\ndsn = \"host=evil.example\"\npush_outputs = true\nsync_after_session = true\n"), 0o600)
	c, vals, err := Load(Files{Project: project}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Team.DSN != "" || c.Team.PushOutputs || c.Team.SyncAfterSession {
		t.Errorf("the project file set team keys: %+v", c.Team)
	}
	n := 0
	for _, v := range vals {
		if v.Source.Kind == "ignored" && strings.HasPrefix(v.Key, "team.") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d team keys listed as ignored, want 3", n)
	}
}
