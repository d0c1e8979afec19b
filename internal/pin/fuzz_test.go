package pin

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// FuzzParse checks the directive parser on any prompt: it never panics;
// it returns either directives or a *SyntaxError, never both; every
// directive it returns has a known target and level and sits on a line of
// the prompt that starts with the prefix (or the prompt is a slash
// command); and Mentions lets every such prompt through.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"ccm:pin last", `ccm:pin last level=soft reason="important build output"`, "ccm:pin next level=hard",
		"ccm:pin start level=soft\nrun it\nccm:pin end", "/pin-last hard reason='x'", "ccm:pin 3f2a9c1b7d4e",
		`ccm:pin last reason="a \"b\" \\"`, "ccm:pin", "ccm:pin last level=", `ccm:pin last reason="`, "/pin-end x",
		"ccm:pin\tlast\thard", "ccm:pin last reason=\"é\xff\"", "a\r\nccm:pin next\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		ds, only, err := Parse(prompt)
		if err != nil {
			var syn *SyntaxError
			if !errors.As(err, &syn) || ds != nil {
				t.Fatalf("Parse(%q) = %v, %v", prompt, ds, err)
			}
			if !Mentions(prompt) {
				t.Fatalf("Mentions(%q) = false, but Parse found a directive line", prompt)
			}
			return
		}
		if len(ds) > 0 && !Mentions(prompt) {
			t.Fatalf("Mentions(%q) = false, but Parse found %v", prompt, ds)
		}
		if only && len(ds) == 0 {
			t.Fatalf("Parse(%q): only without directives", prompt)
		}
		lines := strings.Split(prompt, "\n")
		for _, d := range ds {
			switch d.Target {
			case Last, Next, Start, End:
			case ByID:
				if !isID(d.ID) {
					t.Fatalf("Parse(%q): bad id %q", prompt, d.ID)
				}
			default:
				t.Fatalf("Parse(%q): unknown target %q", prompt, d.Target)
			}
			if d.Level < ctxkeep.PinNone || d.Level > ctxkeep.PinHard {
				t.Fatalf("Parse(%q): level %d", prompt, d.Level)
			}
			if d.Line < 1 || d.Line > len(lines) {
				t.Fatalf("Parse(%q): line %d of %d", prompt, d.Line, len(lines))
			}
			line := strings.TrimSpace(lines[d.Line-1])
			if !strings.HasPrefix(line, Prefix) && !strings.HasPrefix(strings.TrimSpace(prompt), "/pin-") &&
				!strings.HasPrefix(strings.TrimSpace(prompt), "/"+PluginNamespace+"pin-") {
				t.Fatalf("Parse(%q): directive on line %d %q", prompt, d.Line, line)
			}
		}
	})
}
