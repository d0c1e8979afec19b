package fakeresponses

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Reply is what the fake model answers to one request.
type Reply struct {
	Items []Item
	// Usage is reported in response.completed; the zero value reports
	// DefaultUsage. Codex compacts when input_tokens passes its limit
	// (model_auto_compact_token_limit), so tests raise it to force one.
	Usage Usage
	// Error, when set, is answered with HTTP 400 and this message instead.
	Error string
}

// Usage is the token accounting of a response.
type Usage struct {
	InputTokens  int
	CachedTokens int
	OutputTokens int
}

// DefaultUsage is reported by a reply that sets none.
var DefaultUsage = Usage{InputTokens: 1000, OutputTokens: 50}

// Say returns a reply made of one assistant message.
func Say(text string) Reply {
	return Reply{Items: []Item{{Type: "message", Role: "assistant", Content: []Part{{Type: "output_text", Text: text}}}}}
}

// Call returns a reply that calls a function tool with args (marshalled to
// JSON; it panics on a value that cannot be, a mistake in the test).
func Call(callID, name string, args any) Reply {
	data, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("fakeresponses.Call(%q, %q): %v", callID, name, err))
	}
	return Reply{Items: []Item{{Type: "function_call", CallID: callID, Name: name, Arguments: string(data)}}}
}

// Exec returns a reply that runs cmd with Codex's shell tool, waiting up
// to 10 s for it to finish.
func Exec(callID, cmd string) Reply {
	return Call(callID, "exec_command", map[string]any{"cmd": cmd, "yield_time_ms": 10000})
}

// Patch returns a reply that edits files with apply_patch (a freeform
// tool): patch is "*** Begin Patch\n…*** End Patch\n".
func Patch(callID, patch string) Reply {
	return Reply{Items: []Item{{Type: "custom_tool_call", CallID: callID, Name: "apply_patch", Input: patch}}}
}

// Done is the reply once a script has run out.
func Done() Reply { return Say("done") }

// WithUsage returns a copy of r that reports u.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = u
	return r
}

func (r Reply) usage() Usage {
	if r.Usage == (Usage{}) {
		return DefaultUsage
	}
	return r.Usage
}

// stream answers with the events Codex reads (codex-hooks.md §2):
// response.created, one response.output_item.done per item (with
// output_text deltas for messages), then response.completed with the usage.
func stream(w http.ResponseWriter, id string, r Reply) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(kind string, data map[string]any) error {
		data["type"] = kind
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, b)
		return err
	}
	if err := send("response.created", map[string]any{"response": map[string]any{"id": id}}); err != nil {
		return err
	}
	for i, it := range r.Items {
		item := wireItem(it, fmt.Sprintf("%s_item_%d", id, i))
		if err := send("response.output_item.added", map[string]any{"output_index": i, "item": item}); err != nil {
			return err
		}
		if it.Type == "message" {
			if err := send("response.output_text.delta", map[string]any{"output_index": i, "content_index": 0, "delta": it.Text()}); err != nil {
				return err
			}
		}
		if err := send("response.output_item.done", map[string]any{"output_index": i, "item": item}); err != nil {
			return err
		}
	}
	u := r.usage()
	err := send("response.completed", map[string]any{"response": map[string]any{
		"id": id,
		"usage": map[string]any{
			"input_tokens":          u.InputTokens,
			"input_tokens_details":  map[string]int{"cached_tokens": u.CachedTokens},
			"output_tokens":         u.OutputTokens,
			"output_tokens_details": map[string]int{"reasoning_tokens": 0},
			"total_tokens":          u.InputTokens + u.OutputTokens,
		},
	}})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return err
}

// wireItem is an output item as the API sends it: with an id and a status.
func wireItem(it Item, id string) map[string]any {
	m := map[string]any{"type": it.Type, "id": id, "status": "completed"}
	switch it.Type {
	case "message":
		parts := make([]map[string]any, len(it.Content))
		for i, p := range it.Content {
			parts[i] = map[string]any{"type": p.Type, "text": p.Text, "annotations": []any{}}
		}
		m["role"], m["content"] = it.Role, parts
	case "function_call":
		m["call_id"], m["name"], m["arguments"] = it.CallID, it.Name, it.Arguments
		if it.Namespace != "" {
			m["namespace"] = it.Namespace
		}
	case "custom_tool_call":
		m["call_id"], m["name"], m["input"] = it.CallID, it.Name, it.Input
	}
	return m
}

// writeError answers with an API error.
func writeError(w http.ResponseWriter, status int, message string) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": message}})
}
