package archive

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var (
	testGitHubToken = redacttest.GitHubToken
	testAWSKeyID    = redacttest.AWSKeyID
	testAnthropic   = redacttest.AnthropicKey
	testPEMBody     = redacttest.PEMBody
	testPEM         = redacttest.PEM
	testJWT         = redacttest.JWT
)

// turnOf reads one turn from transcript lines written as Go values.
func turnOf(t *testing.T, recs ...any) transcript.Turn {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	sc := transcript.NewScanner(&b, transcript.Cursor{})
	var all []transcript.Record
	for sc.Scan() {
		all = append(all, sc.Record())
	}
	turns := transcript.Turns(all)
	if len(turns) != 1 {
		t.Fatalf("%d turns", len(turns))
	}
	return turns[0]
}

type obj = map[string]any

func prompt(text string) obj {
	return obj{"type": "user", "uuid": "u1", "message": obj{"role": "user", "content": text}}
}

func use(id, name string, input obj) obj {
	return obj{"type": "assistant", "uuid": "a-" + id, "message": obj{"id": "m-" + id, "role": "assistant",
		"content": []any{obj{"type": "tool_use", "id": id, "name": name, "input": input}}}}
}

func result(id, text string, isError bool) obj {
	return obj{"type": "user", "uuid": "r-" + id, "message": obj{"role": "user",
		"content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": isError}}}}
}

func answer(text string) obj {
	return obj{"type": "assistant", "uuid": "a-end", "message": obj{"id": "m-end", "role": "assistant",
		"content": []any{obj{"type": "text", "text": text}}}}
}

// stepsOf archives every step of a turn and joins them into one chunk, for
// tests about what a turn's chunks hold together.
func stepsOf(turn transcript.Turn, lookup Lookup) ctxkeep.Chunk {
	var all ctxkeep.Chunk
	for i, st := range turn.Steps() {
		c := FromStep("s", "/p", 1, i+1, st, lookup)
		all.Body += c.Body
		all.Prompt += c.Prompt
		all.Summary += c.Summary + "\n"
		all.Outputs = append(all.Outputs, c.Outputs...)
		all.Meta.Commands = append(all.Meta.Commands, c.Meta.Commands...)
		all.Meta.Errors = append(all.Meta.Errors, c.Meta.Errors...)
	}
	return all
}

// A chunk holds no secret the turn held: not in its body, prompt, summary,
// state, nor in the outputs it gives the full-text index.
func TestFromStepRedactsSecrets(t *testing.T) {
	turn := turnOf(t,
		prompt("deploy with ANTHROPIC_API_KEY="+testAnthropic+" please"),
		use("b1", "Bash", obj{"command": "GITHUB_TOKEN=" + testGitHubToken + " ./deploy.sh"}),
		result("b1", "Exit code 1\nerror: key "+testAWSKeyID+" is not authorized\n"+testPEM, true),
		use("b2", "Bash", obj{"command": "cat creds.log"}),
		result("b2", "[ctxkeep] Bash output swapped out…", false),
		answer("Done. The session token was "+testJWT+"."),
	)
	lookup := func(id string) (Swapped, bool) {
		if id != "b2" {
			return Swapped{}, false
		}
		return Swapped{ID: "0123456789ab", Text: "line 1\ntoken=" + testGitHubToken + "\n" + testPEM + "\n"}, true
	}
	c := stepsOf(turn, lookup)
	meta, _ := json.Marshal(c.Meta)
	for name, text := range map[string]string{"body": c.Body, "prompt": c.Prompt, "summary": c.Summary,
		"outputs": strings.Join(c.Outputs, "\n"), "meta": string(meta)} {
		for _, secret := range []string{testAnthropic, testGitHubToken, testAWSKeyID, testPEMBody, testJWT} {
			if strings.Contains(text, secret) {
				t.Errorf("the chunk's %s holds %q:\n%s", name, secret, text)
			}
		}
	}
	for _, want := range []string{
		"user: deploy with ANTHROPIC_API_KEY=[redacted:anthropic-key] please",
		"→ Bash: GITHUB_TOKEN=[redacted:github-token] ./deploy.sh",
		"error: key [redacted:aws-access-key] is not authorized\n[redacted:private-key]\n",
		"← result: [[ctxkeep:0123456789ab]]",
		"assistant: Done. The session token was [redacted:jwt].",
	} {
		if !strings.Contains(c.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, c.Body)
		}
	}
	if len(c.Outputs) != 1 || c.Outputs[0] != "line 1\ntoken=[redacted:github-token]\n[redacted:private-key]\n\n\n\n" {
		t.Errorf("outputs %q", c.Outputs)
	}
	if len(c.Meta.Commands) != 2 || c.Meta.Commands[0].Exit != 1 || c.Meta.Commands[0].Run != "GITHUB_TOKEN=[redacted:github-token] ./deploy.sh" {
		t.Errorf("commands %+v", c.Meta.Commands)
	}
}

// A turn without secrets is archived as it was: its text, commands and
// results verbatim, and the turn itself is not copied.
func TestFromStepWithoutSecretsIsUnchanged(t *testing.T) {
	turn := turnOf(t,
		prompt("run the tests, user=dev@example.com"),
		use("b1", "Bash", obj{"command": "go test ./... -run 'Test_x' 2>&1 | tee out.log"}),
		result("b1", "Exit code 1\n--- FAIL: Test_x (0.01s)\n    x_test.go:12: got 2, want 3", true),
		answer("Test_x fails: got 2, want 3."),
	)
	steps := turn.Steps()
	if got := redactStep(steps[0]); &got.Calls[0] != &steps[0].Calls[0] || got.UserText != steps[0].UserText {
		t.Error("redactStep copied a step without secrets")
	}
	c := stepsOf(turn, nil)
	want := "user: run the tests, user=dev@example.com\n" +
		"→ Bash: go test ./... -run 'Test_x' 2>&1 | tee out.log\n" +
		"← error: Exit code 1\n--- FAIL: Test_x (0.01s)\n    x_test.go:12: got 2, want 3\n" +
		"assistant: Test_x fails: got 2, want 3.\n"
	if c.Body != want {
		t.Errorf("body:\n%s\nwant:\n%s", c.Body, want)
	}
}
