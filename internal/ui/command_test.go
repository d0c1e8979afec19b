package ui_test

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/testbin"
)

// TestCommandListens runs `ctxkeep ui` as a user does. By default it
// listens on loopback and says nothing of it; told to listen on every
// address it warns on stderr, and still prints first a URL a browser
// opens (loopback: no browser opens 0.0.0.0). The URL with its token
// opens the Sessions page in a fresh client; a bad address is a usage
// error.
func TestCommandListens(t *testing.T) {
	bin := testbin.Path(t)
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "CTXKEEP_HOME=" + filepath.Join(dir, "ctxkeep"), "PATH=" + os.Getenv("PATH")}
	for _, c := range []struct {
		args []string
		warn bool
	}{
		{[]string{"ui", "--no-open"}, false},
		{[]string{"ui", "--no-open", "--addr", "0.0.0.0:0"}, true},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env, cmd.Dir = env, dir
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("%v: reading the URL: %v", c.args, err)
		}
		// stderr up to the line that says it serves (the warning comes
		// before it).
		var said []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			said = append(said, sc.Text())
			if strings.Contains(sc.Text(), "serving") {
				break
			}
		}
		go io.Copy(io.Discard, stdout)
		go io.Copy(io.Discard, stderr)
		u := strings.TrimSpace(first)
		if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(u, "/?token=") {
			t.Errorf("%v: the first line is %q, want a loopback URL with its token", c.args, u)
		}
		warned := strings.Contains(strings.Join(said, "\n"), "warning: listening on ") &&
			strings.Contains(strings.Join(said, "\n"), "reachable from other machines")
		if warned != c.warn {
			t.Errorf("%v: warned %v, want %v; stderr:\n%s", c.args, warned, c.warn, strings.Join(said, "\n"))
		}
		jar, _ := cookiejar.New(nil)
		resp, err := (&http.Client{Jar: jar}).Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<h1>Sessions</h1>") || strings.Contains(resp.Request.URL.String(), "token") {
			t.Errorf("%v: opening the URL: %d at %s\n%.300s", c.args, resp.StatusCode, resp.Request.URL, body)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%v: ended with %v on SIGTERM", c.args, err)
		}
	}

	for _, addr := range []string{"nowhere", "127.0.0.1:99999"} {
		cmd := exec.Command(bin, "ui", "--no-open", "--addr", addr)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "bad ") {
			t.Errorf("--addr %s: %v\n%s; want the usage error (exit 2)", addr, err, out)
		}
	}
}
