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

// escapeIn returns where a request body holds an escape sequence's
// introducer: ESC, or a C1 control (CSI, OSC, DCS…), raw or as JSON writes
// it; "" when none.
func escapeIn(body []byte) string {
	s := string(body)
	for _, c := range []string{"\x1b", `\u001b`, `\u001B`} {
		if i := strings.Index(s, c); i >= 0 {
			return s[max(0, i-80):min(len(s), i+80)]
		}
	}
	for i, r := range s {
		if r >= 0x80 && r <= 0x9f {
			return s[max(0, i-80):min(len(s), i+80)]
		}
	}
	if i := strings.Index(s, `\u009`); i >= 0 {
		return s[max(0, i-80):min(len(s), i+80)]
	}
	return ""
}

// TestNoEscapeReachesTheModel: a build prints a large coloured output
// (colours, a window title, a hyperlink, a progress line rewritten with
// carriage returns), and a wrapped test run fails in colour; after
// /compact, the restore block carries the failure and the stored outputs.
// No request the client sent — the views, the preservation notes given to
// the summariser, the restore block — holds an escape byte, while the
// stored outputs keep theirs.
func TestNoEscapeReachesTheModel(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	build := "i=1\nwhile [ $i -le 900 ]; do\n" +
		"  printf '\\033[32m  ✓\\033[0m compiled \\033[1mmodule%04d\\033[22m \\033]8;;file:///src/m%d.ts\\033\\\\m%d.ts\\033]8;;\\033\\\\\\n' $i $i $i\n" +
		"  i=$((i+1))\ndone\n" +
		"printf '\\033]0;build\\007[    ] 0%%\\r[##  ] 50%%\\r\\033[32m[####] bundle QUASAR-4417 written\\033[0m\\n'\n"
	tests := "i=1\nwhile [ $i -le 600 ]; do printf '\\033[32m ✓\\033[0m case %d\\n' $i; i=$((i+1)); done\n" +
		"printf ' \\033[31m❯\\033[0m src/refund.test.ts \\033[2m(1 test | \\033[22m\\033[31m1 failed\\033[39m)\\n'\n" +
		"printf '\\033[31mFAIL\\033[39m src/refund.test.ts > rounds refunds\\n'\n" +
		"printf '\\033[31mAssertionError: expected 1999 to be 2000\\033[39m\\n'\n" +
		"printf '\\033[2m Test Files \\033[22m \\033[1m\\033[31m1 failed\\033[39m\\033[22m\\n'\nexit 1\n"
	os.WriteFile(filepath.Join(h.Project, "build.sh"), []byte(build), 0o755)
	os.WriteFile(filepath.Join(h.Project, "vitest.sh"), []byte(tests), 0o755)
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"sh vitest.sh\"]\n"), 0o644)
	h.API.SetSummary("The user asked for a build and the tests.")

	h.API.Script(fakeapi.Bash("b1", "sh build.sh"), fakeapi.Bash("b2", "sh vitest.sh"), fakeapi.Say("The build passes; one refund test fails."))
	id := h.Run("build and test", "--tools", "Bash").SessionID
	h.Run("/compact", "--resume", id)
	before := len(h.API.RequestsOf(fakeapi.Main))
	h.Run("carry on", "--tools", "Bash", "--resume", id)

	main := h.API.RequestsOf(fakeapi.Main)
	if len(main) <= before {
		t.Fatalf("no request after the compaction")
	}
	view, ok := main[1].ToolResult("b1")
	if !ok || !strings.Contains(view, "ctxkeep") || !strings.Contains(view, "bundle QUASAR-4417 written") {
		t.Errorf("the build's result is not ctxkeep's view of it, as a terminal shows it:\n%.2000s", view)
	}
	restored := strings.Join(main[before].SystemMessages(), "\n")
	for _, want := range []string{"ctxkeep restored this session's working state", "AssertionError: expected 1999 to be 2000", "sh build.sh"} {
		if !strings.Contains(restored, want) {
			i := strings.Index(restored, "ctxkeep restored")
			t.Errorf("the first request after compaction lacks %q:\n%.4000s", want, restored[max(i, 0):])
		}
	}
	if h.API.Last(fakeapi.Summary) == nil {
		t.Error("no summarisation request")
	}
	for _, r := range h.API.Requests() {
		if at := escapeIn(r.Body); at != "" {
			t.Errorf("request %d (%s %s) holds an escape: %q", r.Seq, r.Kind, r.Path, at)
		}
	}
	stored := 0
	for _, e := range ck.entries(id) {
		out := ck.run("show", e.ID)
		if strings.Contains(out, "\x1b[") {
			stored++
		}
	}
	if stored != 2 {
		t.Errorf("%d stored outputs keep their escapes, want the build's and the tests': %s", stored, fmt.Sprint(ck.entries(id)))
	}
}
