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
	"github.com/ctxkeep/ctxkeep/internal/watch"
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

// TestHTMLLabelsOnA1MWindow renders the report of a session on a 1M
// window, where the gauge's three marks are within 3% of each other, and
// asks the browser where its labels are: none may overlap another ("client
// wblocked 947k"), none may stick out of the gauge's card, and the title
// must show the whole session name (it was cut to 8 characters) (issue
// 25.6). A script added to the page for the test measures them.
func TestHTMLLabelsOnA1MWindow(t *testing.T) {
	bin := chromium(t)
	file := realdata.File(t, "cc-sessions-obra/large-conversation.jsonl")
	r := report(t, file, Tokenizer())
	r.Session = "large-conversation"
	r.Limits = watch.Compute(1_000_000, watch.ClientEnv{})
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	const measure = `<script>
addEventListener("load", () => {
  const boxes = [...document.querySelectorAll(".gauge .mark span")].map(s => [s.textContent, s.getBoundingClientRect()]);
  const card = document.querySelector("#now").getBoundingClientRect();
  const problems = [];
  for (let i = 0; i < boxes.length; i++) {
    const [a, ra] = boxes[i];
    if (ra.left < card.left || ra.right > card.right) problems.push(a + " sticks out");
    for (let j = i + 1; j < boxes.length; j++) {
      const [b, rb] = boxes[j];
      if (ra.left < rb.right && rb.left < ra.right && ra.top < rb.bottom && rb.top < ra.bottom) problems.push(a + " overlaps " + b);
    }
  }
  const h1 = document.querySelector("h1");
  if (h1.scrollWidth > h1.clientWidth) problems.push("the title is cut");
  document.body.setAttribute("data-labels", problems.length ? problems.join("; ") : "clear");
});
</script>`
	html := strings.Replace(b.String(), "</body>", measure+"</body>", 1)
	page := filepath.Join(t.TempDir(), "context.html")
	if err := os.WriteFile(page, []byte(html), 0o600); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, bin, "--window-size=1280,900", "--dump-dom", "file://"+page)
	m := regexp.MustCompile(`data-labels="([^"]*)"`).FindStringSubmatch(dom)
	switch {
	case m == nil:
		t.Fatal("the measuring script did not run")
	case m[1] != "clear":
		t.Errorf("gauge labels: %s", m[1])
	}
	if !strings.Contains(dom, "Where the context went · large-conversation</h1>") {
		t.Error("the title does not name the whole session")
	}
}
