package hook

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook path never connects to the team archive: it does not link the
// PostgreSQL driver at all (only `ctxkeep team sync`, which SessionEnd may
// start, does).
func TestHookLinksNoTeamDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ctxkeep/ctxkeep/internal/hook").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "jackc/pgx") || strings.HasSuffix(dep, "internal/postgres") || strings.HasSuffix(dep, "internal/team") {
			t.Errorf("internal/hook depends on %s", dep)
		}
	}
}
