package hook

import (
	"context"
	"os"
	"os/exec"
)

// startTeamSync starts `ctxkeep team sync --background` when a session
// ends, if the user asked for it (team.sync_after_session) and named a
// team archive (team.dsn). The hook only starts it, detached in a session
// of its own so that the client's end does not take it down, and does not
// wait: it never connects to the team archive (this package does not even
// link the driver, TestHookLinksNoTeamDriver). The sync takes its own lock
// and time bound, and logs its outcome to team/sync.log.
func startTeamSync(_ context.Context, c *Call) (*Reply, error) {
	if !c.Config.Team.SyncAfterSession || c.Config.Team.DSN == "" {
		return nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "team", "sync", "--background")
	cmd.Env = c.Environ
	cmd.Dir = os.TempDir() // hold no project folder
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return nil, cmd.Process.Release()
}
