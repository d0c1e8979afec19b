package claudecode

import (
	"errors"
	"strings"
	"testing"
)

func TestSetStatusLine(t *testing.T) {
	const ours = "/opt/bin/ctxkeep statusline"
	tests := []struct {
		name, in string
		force    bool
		want     string
		changed  bool
		err      error
	}{
		{"empty file", "", false, "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/ctxkeep statusline\"\n  }\n}\n", true, nil},
		{"other keys kept", "{\n  \"model\": \"opus\",\n  \"n\": 1.50\n}\n", false,
			"{\n  \"model\": \"opus\",\n  \"n\": 1.50,\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"/opt/bin/ctxkeep statusline\"\n  }\n}\n", true, nil},
		{"already ours", "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"/opt/bin/ctxkeep statusline\"}\n}\n", false,
			"{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"/opt/bin/ctxkeep statusline\"}\n}\n", false, nil},
		{"ours from another path is updated", "{\"statusLine\":{\"type\":\"command\",\"command\":\"/old/ctxkeep statusline\"}}", false,
			"{\"statusLine\":{\"type\":\"command\",\"command\":\"/opt/bin/ctxkeep statusline\"}}\n", true, nil},
		{"theirs is refused", "{\"statusLine\":{\"type\":\"command\",\"command\":\"ccusage\"}}", false, "", false, ErrStatusLineTaken},
		{"theirs with force", "{\"statusLine\":{\"type\":\"command\",\"command\":\"ccusage\"}}", true,
			"{\"statusLine\":{\"type\":\"command\",\"command\":\"/opt/bin/ctxkeep statusline\"}}\n", true, nil},
		{"malformed", "{\"statusLine\":", false, "", false, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := SetStatusLine([]byte(tt.in), ours, tt.force)
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if changed != tt.changed || compact(string(out)) != compact(tt.want) {
				t.Errorf("got changed=%v\n%s\nwant changed=%v\n%s", changed, out, tt.changed, tt.want)
			}
		})
	}
}

func compact(s string) string { return strings.Join(strings.Fields(s), "") }

func TestRemoveStatusLine(t *testing.T) {
	theirs := "{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"ccusage\"\n  }\n}\n"
	if out, changed, err := RemoveStatusLine([]byte(theirs)); err != nil || changed || string(out) != theirs {
		t.Errorf("someone else's statusLine was touched: %q %v %v", out, changed, err)
	}
	ours := "{\n  \"model\": \"opus\",\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"'/my tools/ctxkeep' statusline\"\n  }\n}\n"
	out, changed, err := RemoveStatusLine([]byte(ours))
	if err != nil || !changed || string(out) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("got %q %v %v", out, changed, err)
	}
}

func TestEnv(t *testing.T) {
	in := "{\n  \"env\": {\n    \"A\": \"1\",\n    \"N\": 2\n  },\n  \"model\": \"opus\"\n}\n"
	env, err := Env([]byte(in))
	if err != nil || env["A"] != "1" || env["N"] != "2" {
		t.Fatalf("Env = %v, %v", env, err)
	}
	out, changed, err := SetEnv([]byte(in), "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "80")
	if err != nil || !changed || !strings.Contains(string(out), "\"N\": 2,\n    \"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE\": \"80\"\n  },\n  \"model\": \"opus\"") {
		t.Fatalf("set:\n%s (%v, %v)", out, changed, err)
	}
	if again, changed, _ := SetEnv(out, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "80"); changed || string(again) != string(out) {
		t.Error("setting the same value again changed the file")
	}
	back, changed, err := SetEnv(out, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "")
	if err != nil || !changed || compact(string(back)) != compact(in) {
		t.Errorf("unset:\n%s", back)
	}
	only, _, _ := SetEnv([]byte(`{"env":{"X":"1"}}`), "X", "")
	if compact(string(only)) != "{}" {
		t.Errorf("an env left empty must go: %s", only)
	}
	if _, _, err := SetEnv([]byte(`{"env":[1]}`), "X", "1"); !errors.Is(err, ErrMalformed) {
		t.Errorf("env not an object: %v", err)
	}
}

func FuzzSetStatusLine(f *testing.F) {
	f.Add([]byte(`{"statusLine":{"type":"command","command":"x"}}`), true)
	f.Add([]byte(`{"env":{"A":"1"}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, force bool) {
		out, _, err := SetStatusLine(data, "ctxkeep statusline", force)
		if err != nil {
			return
		}
		cmd, err := statusLineOf(out)
		if err != nil || cmd != "ctxkeep statusline" {
			t.Fatalf("after SetStatusLine: %q, %v\n%s", cmd, err, out)
		}
		if _, _, err := SetEnv(out, "K", "v"); err != nil {
			t.Fatalf("SetEnv after SetStatusLine: %v", err)
		}
	})
}

// statusLineOf returns the statusLine command of a settings file's
// content, "" when there is none (or it is not a command).
func statusLineOf(settings []byte) (string, error) {
	doc, err := parseSettings(settings)
	if err != nil {
		return "", err
	}
	return statusCommand(doc.top.Get("statusLine")), nil
}
