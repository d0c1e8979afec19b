package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// TestWatchWarnsOncePerCrossing runs a session whose context grows prompt
// after prompt (the fake API reports the usage) in a 100k auto-compact
// window, where the client compacts at 67k: ctxkeep must warn the model
// (additionalContext, in the request the fake receives) and the user
// (systemMessage, shown by the client) when a level is crossed, once per
// level, only the highest level on a jump, and again after a compaction.
func TestWatchWarnsOncePerCrossing(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	// window 100k → effective 80k → auto-compaction at 67k; levels 70/80/90%
	// of it are 46.9k, 53.6k and 60.3k.
	h.Setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")

	steps := []struct {
		prompt string
		reply  int // the context the reply reports, seen by the next prompt's hook
		warn   int // the level the hook of this prompt warns about, 0 for none
	}{
		{"one", 20_000, 0},    // no usage recorded yet
		{"two", 50_000, 0},    // 20k: 30%
		{"three", 52_000, 70}, // 50k: 75%, past 70
		{"four", 62_000, 0},   // 52k: 78%, 70 already told
		{"five", 63_000, 90},  // 62k: 93%: one warning, the highest; 80 is skipped
		{"six", 30_000, 0},    // 63k: 94%, nothing new
	}
	id := ""
	for _, s := range steps {
		h.API.Script(fakeapi.Say("ok " + s.prompt).WithUsage(usage(s.reply)))
		res := run(h, s.prompt, id)
		id = res.SessionID
		checkWarning(t, h, res, s.prompt, s.warn)
	}

	// Told once each, however many requests re-send the history.
	last := lastMain(h)
	for level, want := range map[int]int{70: 1, 80: 0, 90: 1} {
		if got := strings.Count(strings.Join(last.SystemMessages(), "\n"), modelWarning(level)); got != want {
			t.Errorf("the last request carries the %d%% warning %d times, want %d", level, got, want)
		}
	}

	// A compaction starts a new cycle: the same level warns again.
	h.Run("/compact", "--resume", id)
	h.API.Script(fakeapi.Say("ok seven").WithUsage(usage(50_000)))
	checkWarning(t, h, run(h, "seven", id), "seven", 0) // just compacted: nothing to say
	h.API.Script(fakeapi.Say("ok eight").WithUsage(usage(51_000)))
	checkWarning(t, h, run(h, "eight", id), "eight", 70)

	if s := ck.stats(id); s.Failures != 0 {
		log, _ := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log"))
		t.Errorf("%d hook calls failed:\n%s", s.Failures, log)
	}
}

// usage reports a context of total tokens, most of it read from the cache
// as in a real session.
func usage(total int) fakeapi.Usage {
	return fakeapi.Usage{InputTokens: 500, CacheCreationInputTokens: 1500, CacheReadInputTokens: total - 2100, OutputTokens: 100}
}

func run(h *clienttest.Harness, prompt, id string) *clienttest.Result {
	if id == "" {
		return h.Run(prompt)
	}
	return h.Run(prompt, "--resume", id)
}

func modelWarning(level int) string {
	return fmt.Sprintf("ctxkeep: the context is at %d%% of the point where Claude Code compacts it automatically", level)
}

func lastMain(h *clienttest.Harness) *fakeapi.Request {
	mains := h.API.RequestsOf(fakeapi.Main)
	return mains[len(mains)-1]
}

// checkWarning checks that the prompt's request carries exactly the new
// warning expected (levels told before stay in the history), and that the
// user was shown it in the same run.
func checkWarning(t *testing.T, h *clienttest.Harness, res *clienttest.Result, prompt string, level int) {
	t.Helper()
	req := lastMain(h)
	if !strings.Contains(req.LastUserText(), prompt) {
		t.Fatalf("%s: the last main request is not this prompt's: %q", prompt, req.LastUserText())
	}
	system := strings.Join(req.SystemMessages(), "\n")
	for _, lv := range []int{70, 80, 90} {
		if lv == level && !strings.Contains(system, modelWarning(lv)) {
			t.Errorf("%s: the model was not told about %d%%:\n%s", prompt, lv, system)
		}
	}
	shown := 0
	for _, ev := range res.Events {
		raw := string(ev.Raw)
		if strings.Contains(raw, "UserPromptSubmit") && strings.Contains(raw, "ctxkeep: context ") {
			shown++
			if !strings.Contains(raw, "`ctxkeep context`") {
				t.Errorf("%s: the user's message does not say what ctxkeep offers: %s", prompt, raw)
			}
		}
	}
	if want := min(level, 1); shown != want {
		t.Errorf("%s: the user was shown %d warning(s), want %d", prompt, shown, want)
	}
}

// TestWatchWarnsInsideALongTurn: one prompt drives several tool calls; the
// context crosses the first level between two of them. The warning comes
// with a tool call's result (PostToolUse) — that of the call whose
// response crossed, or, when the client had not yet written that
// response's line (it writes a little behind, and the hook never waits),
// the next one — and it is told exactly once, however many requests
// follow; no request before the crossing carries it.
func TestWatchWarnsInsideALongTurn(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	h.Setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000") // compacts at 67k; 70% is 46.9k
	h.API.Script(
		fakeapi.Bash("b1", "echo one").WithUsage(usage(20_000)),
		fakeapi.Bash("b2", "echo two").WithUsage(usage(50_000)),
		fakeapi.Bash("b3", "echo three").WithUsage(usage(52_000)),
		fakeapi.Say("done").WithUsage(usage(53_000)),
	)
	res := h.Run("do the work", "--tools", "Bash")
	mains := h.API.RequestsOf(fakeapi.Main)
	if len(mains) != 4 {
		t.Fatalf("%d main requests, want 4", len(mains))
	}
	told := -1 // the first request that carries the warning
	for i, m := range mains {
		n := strings.Count(strings.Join(m.SystemMessages(), "\n"), modelWarning(70))
		if told < 0 && n > 0 {
			told = i
		}
		if told >= 0 && n != 1 || told < 0 && n != 0 {
			t.Errorf("request %d carries the 70%% warning %d times", i, n)
		}
	}
	if told != 2 && told != 3 {
		t.Errorf("the warning came with request %d; the crossing was in response 2, so request 2 or 3", told)
	}
	if strings.Contains(strings.Join(mains[3].SystemMessages(), "\n"), modelWarning(80)) {
		t.Error("a level not crossed was told")
	}
	if s := ck.stats(res.SessionID); s.Failures != 0 {
		log, _ := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log"))
		t.Errorf("%d hook calls failed:\n%s", s.Failures, log)
	}
}
