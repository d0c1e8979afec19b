package codex

import (
	"errors"
	"testing"
)

// The hashes the real client computed for these handlers (codex app-server
// hooks/list, 0.169.0): a matcher event with and without a matcher, a
// SessionEnd, a handler with no timeout.
func TestHashMatchesTheClient(t *testing.T) {
	const cmd = "python3 /tmp/cx/loghook.py"
	data := []byte(`{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"` + cmd + `","timeout":30}]}],
"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + cmd + `","timeout":30}]}],
"SessionEnd":[{"hooks":[{"type":"command","command":"` + cmd + `","timeout":3}]}],
"Stop":[{"hooks":[{"type":"command","command":"` + cmd + `"}]}]}}`)
	hs, err := Handlers(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"/tmp/cx/ch/codex/hooks.json:pre_tool_use:0:0":  "sha256:21b51fe4b81cb10000623abc373efbd356c841e0a1f217b1e77477b2c1b74f1c",
		"/tmp/cx/ch/codex/hooks.json:post_tool_use:0:0": "sha256:8610754cf683f451f7e45ad85bc2c164057887f4fea6e9bd36423034662eb3c4",
		"/tmp/cx/ch/codex/hooks.json:session_end:0:0":   "sha256:c35f52bfab49303aa2f31ae3dbaa95d25677173f8917bb3fda3f7051934efed0",
		"/tmp/cx/ch/codex/hooks.json:stop:0:0":          "sha256:31552b593f01fc1739d671fdb1785a2f2be3057848b75778bf77fe1a7f0d33f8",
	}
	if len(hs) != len(want) {
		t.Fatalf("%d handlers: %+v", len(hs), hs)
	}
	for _, h := range hs {
		key := h.Key("/tmp/cx/ch/codex/hooks.json")
		if got := h.Hash(); got != want[key] {
			t.Errorf("%s: %s, the client computed %s", key, got, want[key])
		}
		if h.Ours {
			t.Errorf("%s taken for ctxkeep's", key)
		}
	}
	if hs[0].Event != "PostToolUse" || hs[1].Event != "PreToolUse" {
		t.Errorf("not in file order: %s, %s", hs[0].Event, hs[1].Event)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"PostToolUse": "post_tool_use", "Stop": "stop", "SessionEnd": "session_end", "UserPromptSubmit": "user_prompt_submit"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%s) = %s", in, got)
		}
	}
}

// ctxkeep's trust tables go in after the user's configuration and come out
// without a trace; the user's own tables, hooks.state ones included, are
// kept; a table of the same key that ctxkeep did not write is replaced.
func TestSetTrustRoundTrip(t *testing.T) {
	const user = "model = \"gpt-5.5\" # mine\n\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:user\"\n"
	const hooks = `/h/"odd"\hooks.json` // quotes and backslashes escaped
	entries := []Trust{{Key: hooks + ":post_tool_use:1:0", Hash: "sha256:aa"}, {Key: hooks + ":stop:1:0", Hash: "sha256:bb"}}
	in, changed, err := SetTrust([]byte(user), hooks, entries)
	if err != nil || !changed {
		t.Fatalf("set: %v %v", changed, err)
	}
	hashes, off, err := TrustState(in)
	if err != nil || off || hashes[hooks+":post_tool_use:1:0"] != "sha256:aa" || hashes[hooks+":stop:1:0"] != "sha256:bb" || hashes["/h/hooks.json:stop:0:0"] != "sha256:user" {
		t.Fatalf("state %v %v %v\n%s", hashes, off, err, in)
	}
	if string(in[:len(user)]) != user {
		t.Errorf("the user's part changed:\n%s", in)
	}
	// Again with the same entries: nothing to do.
	if _, changed, err := SetTrust(in, hooks, entries); changed || err != nil {
		t.Errorf("second set changed=%v err=%v", changed, err)
	}
	// New indices replace ctxkeep's old tables.
	moved, _, err := SetTrust(in, hooks, entries[:1])
	if err != nil {
		t.Fatal(err)
	}
	if hashes, _, _ := TrustState(moved); len(hashes) != 2 {
		t.Errorf("after a smaller set: %v\n%s", hashes, moved)
	}
	out, changed, err := RemoveTrust(in, hooks)
	if err != nil || !changed || string(out) != user {
		t.Errorf("remove: %v %v\n%q", changed, err, out)
	}
	// A table of one of ctxkeep's keys written by Codex's own review is
	// replaced, not doubled (TOML forbids a table twice).
	review := user + "\n[hooks.state.\"/h/hooks.json:post_tool_use:1:0\"]\ntrusted_hash = \"sha256:old\"\nenabled = true\n"
	if out, _, err := SetTrust([]byte(review), "/h/hooks.json", []Trust{{Key: "/h/hooks.json:post_tool_use:1:0", Hash: "sha256:aa"}}); err != nil {
		t.Errorf("over a review's table: %v\n%s", err, out)
	}
}

// A config.toml that does not parse, or where the tables cannot go, is
// refused, and nothing is returned to write.
func TestSetTrustRefuses(t *testing.T) {
	entries := []Trust{{Key: "/h/hooks.json:stop:0:0", Hash: "sha256:aa"}}
	for _, bad := range []string{"model = \n", "hooks = { state = {} }\n"} {
		if out, _, err := SetTrust([]byte(bad), "/h/hooks.json", entries); !errors.Is(err, ErrConfig) || out != nil {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
