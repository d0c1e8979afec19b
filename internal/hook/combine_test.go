package hook

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

func TestAllMergesRepliesAndSkipsFailures(t *testing.T) {
	f := newFixture(t)
	ctxOf := func(s string) handler {
		return func(context.Context, *Call) (*Reply, error) {
			return &Reply{SystemMessage: "msg " + s, Specific: &SpecificOutput{HookEventName: "UserPromptSubmit", AdditionalContext: "ctx " + s}}, nil
		}
	}
	failing := func(context.Context, *Call) (*Reply, error) { return nil, errors.New("policy broke") }
	h := all(ctxOf("a"), failing, nothing, ctxOf("b"))
	out := f.run(golden(t, "UserPromptSubmit.json"), map[string]handler{"UserPromptSubmit": h})
	if !strings.Contains(out, `"systemMessage":"msg a\n\nmsg b"`) || !strings.Contains(out, `"additionalContext":"ctx a\n\nctx b"`) {
		t.Fatalf("stdout %s", out)
	}
	if !strings.Contains(f.log(), "policy broke") {
		t.Fatalf("log %q", f.log())
	}
	if recs := f.journal(session); len(recs) != 1 || recs[0].Outcome != ctxkeep.Failed {
		t.Fatalf("journal %+v: a partial failure is a failure", recs)
	}
	if out := f.run(golden(t, "UserPromptSubmit.json"), map[string]handler{"UserPromptSubmit": all()}); out != "" {
		t.Fatalf("no policies replied %q", out)
	}
}
