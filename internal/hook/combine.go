package hook

import (
	"context"
	"errors"
	"strings"
)

// all runs several policies for one event, in order, and merges their
// replies: additional contexts, user messages and plain text are joined
// with blank lines, and of anything else the first value set wins. A policy
// that fails is skipped, its reply dropped: it fails open on its own, and
// one feature's bug does not silence the others. The call is then recorded
// as failed, with the errors, but the other policies' reply is written.
func all(policies ...handler) handler {
	return func(ctx context.Context, c *Call) (*Reply, error) {
		var merged *Reply
		var failed partialError
		for _, p := range policies {
			r, err := p(ctx, c)
			if err != nil {
				failed = append(failed, err)
				continue
			}
			merged = merge(merged, r)
		}
		if len(failed) > 0 {
			return merged, failed
		}
		return merged, nil
	}
}

// partialError is the failure of some of the policies all ran.
type partialError []error

func (e partialError) Error() string { return errors.Join(e...).Error() }

func merge(a, b *Reply) *Reply {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := *a
	out.SystemMessage = joinText(a.SystemMessage, b.SystemMessage)
	out.Text = joinText(a.Text, b.Text)
	if out.Decision == "" {
		out.Decision, out.Reason = b.Decision, b.Reason
	}
	if out.Continue == nil {
		out.Continue, out.StopReason = b.Continue, b.StopReason
	}
	out.SuppressOutput = a.SuppressOutput || b.SuppressOutput
	out.Specific = mergeSpecific(a.Specific, b.Specific)
	return &out
}

func mergeSpecific(a, b *SpecificOutput) *SpecificOutput {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := *a
	out.AdditionalContext = joinText(a.AdditionalContext, b.AdditionalContext)
	if out.UpdatedToolOutput == nil {
		out.UpdatedToolOutput = b.UpdatedToolOutput
	}
	if out.UpdatedMCPToolOutput == nil {
		out.UpdatedMCPToolOutput = b.UpdatedMCPToolOutput
	}
	if out.UpdatedInput == nil {
		out.UpdatedInput = b.UpdatedInput
	}
	if out.ToolInput == nil {
		out.ToolInput = b.ToolInput
	}
	if out.LLMRequest == nil {
		out.LLMRequest = b.LLMRequest
	}
	if out.PermissionDecision == "" {
		out.PermissionDecision, out.PermissionDecisionReason = b.PermissionDecision, b.PermissionDecisionReason
	}
	return &out
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "\n") + "\n\n" + b
}
