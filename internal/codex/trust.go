package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// Codex runs a hook only once it is trusted (codex-hooks.md §4): the
// user's config.toml must hold, under hooks.state, the hook's key with the
// hash of what it runs. A hook without it is skipped without a word; one
// whose command, timeout or matcher changed is "modified", and skipped
// too, until trusted again.
//
//	[hooks.state."/home/you/.codex/hooks.json:post_tool_use:1:0"]
//	trusted_hash = "sha256:…"
//
// The key is the hooks file's absolute path, the event in snake case, the
// matcher group's index in the event's array and the handler's index in
// the group. The hash is the SHA-256 of a normal form of the handler: the
// JSON, keys sorted, without spaces, of
//
//	{"event_name": "post_tool_use", "matcher": "…" (matcher events only, when set),
//	 "hooks": [{"type": "command", "command": "…", "timeout": T, "async": false, "statusMessage": "…" (when set)}]}
//
// with T the handler's timeout, 600 when it has none, at least 1, at most 3
// for SessionEnd and Interrupt. Checked against `codex app-server`'s
// hooks/list currentHash for 0.169.0.

// Handler is one command handler of a hooks file.
type Handler struct {
	Event   string // as in the file: "PostToolUse"
	Group   int    // index of its matcher group in the event's array
	Index   int    // index in the group's hooks
	Matcher *string
	Command string
	Timeout *int
	Async   bool
	Status  *string // statusMessage
	Ours    bool    // it runs `ctxkeep hook`
}

// Key is the handler's hooks.state key for the hooks file at path.
func (h Handler) Key(path string) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, snake(h.Event), h.Group, h.Index)
}

// Hash is what Codex compares the trusted hash with.
func (h Handler) Hash() string {
	event := snake(h.Event)
	timeout := 600
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	if event == "session_end" || event == "interrupt" {
		timeout = min(timeout, 3)
	}
	handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
	if h.Status != nil {
		handler["statusMessage"] = *h.Status
	}
	identity := map[string]any{"event_name": event, "hooks": []any{handler}}
	if h.Matcher != nil && matcherEvents[event] {
		identity["matcher"] = *h.Matcher
	}
	sum := sha256.Sum256(canonical(identity))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// matcherEvents are the events whose matcher is part of the identity.
var matcherEvents = map[string]bool{
	"permission_request": true, "post_compact": true, "post_tool_use": true,
	"pre_compact": true, "pre_tool_use": true, "session_start": true,
}

// canonical is v as serde_json writes it: keys sorted (encoding/json sorts
// a map's), no spaces, and no HTML escapes.
func canonical(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	// encoding/json escapes U+2028 and U+2029; serde_json writes them as is.
	out = bytes.ReplaceAll(out, []byte(`\u2028`), []byte("\u2028"))
	return bytes.ReplaceAll(out, []byte(`\u2029`), []byte("\u2029"))
}

// snake writes an event name as Codex's keys do: PostToolUse → post_tool_use.
func snake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Handlers lists the command handlers of a hooks file's content, in file
// order within each event. Groups and handlers of another shape are
// skipped (their indices still count).
func Handlers(data []byte) ([]Handler, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", claudecode.ErrMalformed, err)
	}
	var out []Handler
	for _, event := range eventsInOrder(data, doc.Hooks) {
		for gi, raw := range doc.Hooks[event] {
			var g struct {
				Matcher *string           `json:"matcher"`
				Hooks   []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(raw, &g) != nil {
				continue
			}
			for hi, rawh := range g.Hooks {
				var h struct {
					Type    string  `json:"type"`
					Command string  `json:"command"`
					Timeout *int    `json:"timeout"`
					Async   bool    `json:"async"`
					Status  *string `json:"statusMessage"`
				}
				if json.Unmarshal(rawh, &h) != nil || h.Type != "command" {
					continue
				}
				out = append(out, Handler{Event: event, Group: gi, Index: hi, Matcher: g.Matcher, Command: h.Command,
					Timeout: h.Timeout, Async: h.Async, Status: h.Status, Ours: claudecode.IsCtxkeepCommand(h.Command)})
			}
		}
	}
	return out, nil
}

// eventsInOrder returns the events of hooks in the order the file lists
// them (for stable output), falling back to any order.
func eventsInOrder(data []byte, hooks map[string][]json.RawMessage) []string {
	var order []string
	dec := json.NewDecoder(bytes.NewReader(data))
	var top map[string]json.RawMessage
	if dec.Decode(&top) == nil {
		d := json.NewDecoder(bytes.NewReader(top["hooks"]))
		if tok, err := d.Token(); err == nil && tok == json.Delim('{') {
			for d.More() {
				tok, err := d.Token()
				if err != nil {
					break
				}
				name, _ := tok.(string)
				order = append(order, name)
				var skip json.RawMessage
				if d.Decode(&skip) != nil {
					break
				}
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range order {
		if _, ok := hooks[e]; ok && !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	for e := range hooks {
		if !seen[e] {
			out = append(out, e)
		}
	}
	return out
}
