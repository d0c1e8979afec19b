package learned

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

func TestPattern(t *testing.T) {
	for in, want := range map[string]string{
		"go test ./...":         "go test",
		"make -j4":              "make",
		"make check":            "make check",
		"npm run build -- --x":  "npm run",
		"sudo apt-get install":  "apt-get install",
		"python -m pytest -x":   "python",
		"mix test test/foo.exs": "mix test",
		"./gradlew build":       "./gradlew build",
		"cat /var/log/syslog":   "cat",
		"":                      "",
	} {
		if got := Pattern(in); got != want {
			t.Errorf("Pattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRecordMatchForget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "learned.json")
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	if err := Record(path, "/p", "cd sub && mix test --failed", 120000, now); err != nil {
		t.Fatal(err)
	}
	Record(path, "/p", "mix test", 5000, now.Add(time.Hour))
	Record(path, "/p", "cd sub", 99999, now) // shell-only: never learned
	Record(path, "/q", "cargo build", 50000, now)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cmds := f.Projects["/p"]; len(cmds) != 1 || cmds[0].Hits != 2 || cmds[0].MaxChars != 120000 || !cmds[0].Last.Equal(now.Add(time.Hour)) {
		t.Fatalf("/p = %+v", cmds)
	}
	if f.Match("/p", "FOO=1 mix test test/x.exs") != "mix test" || f.Match("/p", "mix compile") != "" || f.Match("/q", "mix test") != "" {
		t.Error("Match is wrong")
	}
	if n, err := Forget(path, "", "mix test"); err != nil || n != 1 {
		t.Fatalf("Forget = %d, %v", n, err)
	}
	f, _ = Load(path)
	if _, ok := f.Projects["/p"]; ok || len(f.Projects["/q"]) != 1 {
		t.Fatalf("after Forget: %+v", f.Projects)
	}
}

func TestConcurrentRecordsKeepEveryUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "learned.json")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Record(path, "/p", fmt.Sprintf("tool%d run", i), 10000, time.Now())
		}()
	}
	wg.Wait()
	f, _ := Load(path)
	if len(f.Projects["/p"]) != 20 {
		t.Fatalf("%d of 20 patterns kept", len(f.Projects["/p"]))
	}
}

// A command run with a secret in its variables, or a secret where the
// program goes, is learned without it; a list learned before patterns
// were redacted is read redacted.
func TestLearnedHoldsNoSecret(t *testing.T) {
	age := "AGE-SECRET" + "-KEY-1" + redacttest.Cut("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 1, 58)
	for in, want := range map[string]string{
		"SOPS_AGE_KEY=" + age + " sops -d secrets.yaml":               "sops",
		"GITHUB_TOKEN=" + redacttest.GitHubToken + " gh release list": "gh release",
		"env AWS_SECRET_ACCESS_KEY=x aws s3 ls":                       "aws s3",
	} {
		if got := Pattern(in); got != want {
			t.Errorf("Pattern(%q) = %q, want %q", in, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "learned.json")
	now := time.Now()
	for _, c := range []string{"SOPS_AGE_KEY=" + age + " sops -d x", age + " decrypt", "echo hi; " + redacttest.GitHubToken + " run"} {
		if err := Record(path, "/p", c, 50000, now); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	for _, s := range []string{age, redacttest.GitHubToken} {
		if strings.Contains(string(data), s) {
			t.Errorf("learned.json holds %q:\n%s", s, data)
		}
	}
	old := fmt.Sprintf(`{"projects":{"/p":[{"pattern":%q,"hits":1,"max_chars":1,"last":"2026-01-01T00:00:00Z"}]}}`, age+" run")
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || len(f.Projects["/p"]) != 1 || strings.Contains(f.Projects["/p"][0].Pattern, age) {
		t.Errorf("Load of an old list = %+v, %v", f, err)
	}
}
