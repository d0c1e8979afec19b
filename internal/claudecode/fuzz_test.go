package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/rawjson"
)

// FuzzAddRemove installs and uninstalls on arbitrary content. It must never
// panic; malformed content must be refused as such; installing must leave
// exactly the registered handlers and be idempotent; uninstalling must leave
// none; and a file Claude Code could have written gets back to its bytes.
func FuzzAddRemove(f *testing.F) {
	for _, seed := range []string{
		"", "{}", "{}\n", installed, userSettings, "[]", `{"hooks": []}`, `{"a":1e3,"b":"<&>"}`,
		`{"hooks": {"Stop": [{"hooks": [{"command": "ctxkeep hook"}]}]}}`,
		`{"hooks": {"PostToolUse": [{"matcher": 1, "hooks": [{"command": "'/x y/ctxkeep' hook"}]}, 2]}}`,
		"{\r\n  \"model\": \"x\"\r\n}\r\n",
		`{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}, "z": [1e3]}`,
		`{"hooks": {"SessionEnd": [{"hooks": [{"command": "ctxkeep hook"}, {"command": "y"}]}], "SessionEnd": []}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkAddRemove(t, in)
		// Random bytes are seldom formatted as Claude Code formats: try the
		// formatted input too, so that the round trip is checked often.
		if canonical, ok := canonicalJSON(in); ok {
			checkAddRemove(t, canonical)
		}
	})
}

func checkAddRemove(t *testing.T, in []byte) {
	t.Helper()
	added, _, err := AddHooks(in, testReg)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("AddHooks failed without ErrMalformed: %v", err)
		}
		if _, _, err := RemoveHooks(in); !errors.Is(err, ErrMalformed) {
			t.Fatalf("AddHooks refused the input but RemoveHooks said %v", err)
		}
		return
	}
	if found, err := FindHooks(added); err != nil || len(found) != len(testReg.Hooks) {
		t.Fatalf("after AddHooks found %+v (%v), want %d handlers\n%s", found, err, len(testReg.Hooks), added)
	}
	if again, changed, err := AddHooks(added, testReg); err != nil || changed || !bytes.Equal(again, added) {
		t.Fatalf("AddHooks is not idempotent: changed=%v err=%v", changed, err)
	}
	removed, _, err := RemoveHooks(added)
	if err != nil {
		t.Fatalf("RemoveHooks of AddHooks's output: %v", err)
	}
	if found, err := FindHooks(removed); err != nil || len(found) != 0 {
		t.Fatalf("after RemoveHooks found %+v (%v)", found, err)
	}
	if roundTrips(in) && !bytes.Equal(removed, in) {
		t.Fatalf("round trip changed the file:\n in %q\nout %q", in, removed)
	}
}

// roundTrips reports whether uninstalling must give in back byte for byte:
// it is formatted as ctxkeep formats, holds no ctxkeep handler, and has no
// empty container that AddHooks would fill and RemoveHooks then prune (an
// empty hooks object or registered event), which cannot be told apart from
// one ctxkeep created.
func roundTrips(in []byte) bool {
	if canonical, ok := canonicalJSON(in); !ok || !bytes.Equal(canonical, in) {
		return false
	}
	if found, err := FindHooks(in); err != nil || len(found) > 0 {
		return false
	}
	doc, err := parseSettings(in)
	if err != nil || doc.hooks != nil && len(doc.hooks) == 0 {
		return false
	}
	for _, s := range testReg.Hooks {
		if events, _ := rawjson.ParseArray(doc.hooks.Get(s.Event)); events != nil && len(events) == 0 {
			return false
		}
	}
	return true
}

// canonicalJSON formats valid JSON the way ctxkeep and Claude Code do.
func canonicalJSON(in []byte) ([]byte, bool) {
	var compact bytes.Buffer
	if json.Compact(&compact, in) != nil {
		return nil, false
	}
	out, err := format(compact.Bytes(), false)
	return out, err == nil
}
