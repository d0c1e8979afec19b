package swap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

var (
	testGitHubToken = redacttest.GitHubToken
	testAWSKeyID    = redacttest.AWSKeyID
	testPEMBody     = redacttest.PEMBody
	testPEM         = redacttest.PEM + "\n"
	testURLPassword = "Tr0ub4dor-and-3"
)

// A view shows [redacted:KIND] where the output and the call held secrets,
// in failure lines, the head and the tail alike; its line numbers and
// figures are the original's.
func TestViewRedactsSecrets(t *testing.T) {
	var b strings.Builder
	b.WriteString("env:\nGITHUB_TOKEN=" + testGitHubToken + "\nAWS_ACCESS_KEY_ID=" + testAWSKeyID + "\n")
	for i := 4; i <= 3000; i++ {
		switch i {
		case 1500:
			fmt.Fprintf(&b, "--- FAIL: TestAuth (0.01s): token %s rejected\n", testGitHubToken)
		default:
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n", i)
		}
	}
	b.WriteString(testPEM) // lines 3001-3004
	b.WriteString("FAIL\tgithub.com/x/y\t3.2s\n")
	text := b.String()
	it := Item{ID: "3f9a12bc07de", Tool: "Bash", Text: text, Exit: 1,
		Input: "curl -H 'Authorization: token " + testGitHubToken + "' https://deploy:" + testURLPassword + "@ci.example.com/x && go test ./..."}

	view, st := View(it, budget)
	for _, secret := range []string{testGitHubToken, testAWSKeyID, testPEMBody, testURLPassword} {
		if strings.Contains(view, secret) {
			t.Errorf("the view shows the secret %q:\n%s", secret, view)
		}
	}
	for _, want := range []string{
		"call: curl -H 'Authorization: token [redacted:github-token]' https://deploy:[redacted:url-password]@ci.example.com/x",
		"L1500: --- FAIL: TestAuth (0.01s): token [redacted:github-token] rejected",
		"L2: GITHUB_TOKEN=[redacted:github-token]", "L3: AWS_ACCESS_KEY_ID=[redacted:aws-access-key]",
		"L3001: [redacted:private-key]", "L3005: FAIL\tgithub.com/x/y",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if st.Chars != len(text) || st.Lines != 3005 || st.Failures != 2 {
		t.Errorf("stats = %+v, want the original's figures", st)
	}
	if strings.Contains(st.Brief, testPEMBody) || strings.Contains(st.Brief, testGitHubToken) {
		t.Errorf("the brief shows a secret: %q", st.Brief)
	}

	keep := budget
	keep.KeepSecrets = true
	if shown, _ := View(it, keep); !strings.Contains(shown, testGitHubToken) {
		t.Error("with KeepSecrets the view still hides the token")
	}
}

// Without secrets, redaction changes nothing: the view is the same
// whether secrets are kept or not.
func TestViewWithoutSecretsIsUnchanged(t *testing.T) {
	it := Item{ID: "3f9a12bc07de", Tool: "Bash", Input: "go test ./... -run 'Test_x-y' | tee out@x?a=b", Text: buildLog(5000, 1200, 2500), Exit: 1}
	keep := budget
	keep.KeepSecrets = true
	redacted, st1 := View(it, budget)
	kept, st2 := View(it, keep)
	if redacted != kept || st1 != st2 {
		t.Errorf("redaction changed a view without secrets:\n%s\n---\n%s", redacted, kept)
	}
}
