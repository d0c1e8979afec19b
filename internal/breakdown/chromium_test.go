package breakdown

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/context.png from a real session")

// chromium finds Debian's chromium (scripts/install-chromium.sh installs
// it). Without it the test skips on a laptop and fails in CI.
func chromium(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed: run scripts/install-chromium.sh")
		}
		t.Skip("chromium is not installed (scripts/install-chromium.sh)")
	}
	return bin
}

// headless runs chromium on a page with a fresh profile, offline, and
// returns its stdout and stderr.
func headless(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleProblem matches what chromium logs for a page's console errors
// and uncaught exceptions.
var consoleProblem = regexp.MustCompile(`(?i)CONSOLE.*(error|uncaught)|Uncaught|SyntaxError|TypeError|ReferenceError`)

// TestHTMLInChromium opens the report of a real session in headless
// chromium: the page must render the chart (its script marks it ready
// after finding the SVG), log no console error, and load nothing from the
// network (it is self-contained). A screenshot is taken too; with
// -update-screenshot it becomes docs/context.png.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	file := realdata.File(t, "cc-sessions-spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	r := report(t, file, Tokenizer())
	r.Transcript = "~/.claude/projects/-home-you-spotter/" + filepath.Base(file)
	dir := t.TempDir()
	page := filepath.Join(dir, "context.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).Match(b.Bytes()) {
		t.Fatal("the page refers to something outside itself")
	}
	if err := os.WriteFile(page, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	dom, logs := headless(t, bin, "--dump-dom", "file://"+page)
	for _, want := range []string{`data-chart="ready"`, `<svg`, `class="line"`, `class="compaction"`, "auto compaction at 167k"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page has no %s", want)
		}
	}
	for _, line := range strings.Split(logs, "\n") {
		if consoleProblem.MatchString(line) {
			t.Errorf("chromium: %s", line)
		}
	}

	shot := filepath.Join(dir, "context.png")
	headless(t, bin, "--window-size=1100,1250", "--screenshot="+shot, "file://"+page)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 20_000 {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	if *updateScreenshot {
		if err := os.WriteFile("../../docs/context.png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
