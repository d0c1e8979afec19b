package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

// The fake secrets, shorter.
var (
	awsID      = redacttest.AWSKeyID
	awsTempID  = redacttest.AWSTempKeyID
	awsSecret  = redacttest.AWSSecret
	ghToken    = redacttest.GitHubToken
	ghsToken   = redacttest.GitHubApp
	ghPAT      = redacttest.GitHubPAT
	glToken    = redacttest.GitLabToken
	slackTok   = redacttest.SlackToken
	antKey     = redacttest.AnthropicKey
	openaiOld  = redacttest.OpenAIKey
	openaiProj = redacttest.OpenAIProject
	gKey       = redacttest.GoogleAPIKey
	stripeKey  = redacttest.StripeKey
	jwtTok     = redacttest.JWT
	pemKey     = redacttest.PEM
)

func TestStringRedactsEachKind(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"aws key id", "export AWS_ACCESS_KEY_ID=" + awsID + "\n", "export AWS_ACCESS_KEY_ID=[redacted:aws-access-key]\n"},
		{"aws temporary key id", `"AccessKeyId": "` + awsTempID + `",`, `"AccessKeyId": "[redacted:aws-access-key]",`},
		{"aws secret, credentials file", "aws_secret_access_key = " + awsSecret + "\n", "aws_secret_access_key = [redacted:aws-secret-key]\n"},
		{"aws secret, environment", "AWS_SECRET_ACCESS_KEY=" + awsSecret, "AWS_SECRET_ACCESS_KEY=[redacted:aws-secret-key]"},
		{"aws secret, quoted", `aws_secret_access_key: "` + awsSecret + `"`, `aws_secret_access_key: "[redacted:aws-secret-key]"`},
		{"github classic", "token: " + ghToken, "token: [redacted:github-token]"},
		{"github app", "GITHUB_TOKEN=" + ghsToken + " git push", "GITHUB_TOKEN=[redacted:github-token] git push"},
		{"github fine-grained", "pat " + ghPAT + ".", "pat [redacted:github-token]."},
		{"gitlab", "glab auth login --token " + glToken, "glab auth login --token [redacted:gitlab-token]"},
		{"slack", "SLACK_BOT_TOKEN='" + slackTok + "'", "SLACK_BOT_TOKEN='[redacted:slack-token]'"},
		{"anthropic", "ANTHROPIC_API_KEY=" + antKey + "\n", "ANTHROPIC_API_KEY=[redacted:anthropic-key]\n"},
		{"openai legacy", "key=" + openaiOld, "key=[redacted:openai-key]"},
		{"openai project", "OPENAI_API_KEY=" + openaiProj, "OPENAI_API_KEY=[redacted:openai-key]"},
		{"google", "?key=x&k=" + gKey, "?key=x&k=[redacted:google-api-key]"},
		{"stripe", "Stripe.api_key = '" + stripeKey + "'", "Stripe.api_key = '[redacted:stripe-key]'"},
		{"jwt", "Authorization: Bearer " + jwtTok + "\n", "Authorization: Bearer [redacted:jwt]\n"},
		{"pem, lines kept", "key:\n" + pemKey + "\nafter", "key:\n[redacted:private-key]\n\n\n\nafter"},
		{"pem cut short", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACBhY2tlZA==\n$ next", "[redacted:private-key]\n\n\n$ next"},
		{"url query secrets", "GET https://api.x.io/v1?user=me&access_token=abc123def&page=2 200", "GET https://api.x.io/v1?user=me&access_token=[redacted:url-secret]&page=2 200"},
		{"url query password", `curl "https://h/login?Password=hunter22"`, `curl "https://h/login?Password=[redacted:url-secret]"`},
		{"url credentials", "git clone https://oauth2:s3cr3t-pass@gitlab.com/g/p.git", "git clone https://oauth2:[redacted:url-password]@gitlab.com/g/p.git"},
		{"db url", "DATABASE_URL=postgres://app:Tr0ub4dor&3@db.internal:5432/app", "DATABASE_URL=postgres://app:[redacted:url-password]@db.internal:5432/app"},
		{"token in url credentials", "https://x-access-token:" + ghsToken + "@github.com/o/r", "https://x-access-token:[redacted:github-token]@github.com/o/r"},
		{"two in a row", ghToken + " " + ghsToken, "[redacted:github-token] [redacted:github-token]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if strings.Count(got, "\n") != strings.Count(tt.in, "\n") {
				t.Errorf("line count changed: %d → %d", strings.Count(tt.in, "\n"), strings.Count(got, "\n"))
			}
			if again := String(got); again != got {
				t.Errorf("redacting twice changes it again: %q", again)
			}
			if !Contains(tt.in) {
				t.Error("Contains is false")
			}
			if b := Bytes([]byte(tt.in)); string(b) != tt.want {
				t.Errorf("Bytes: %q", b)
			}
		})
	}
}

// Text that only looks like secrets is left alone: the same string comes
// back, without an allocation.
func TestStringLeavesLookalikesAlone(t *testing.T) {
	for _, in := range []string{
		"",
		"ok  \tgithub.com/ctxkeep/ctxkeep/internal/swap\t0.012s",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 sha256:" + strings.Repeat("ab12", 16),
		"id 0b6f3c8e-6a2b-4c1d-9e8f-0123456789ab",
		"task-" + strings.Repeat("A1b2C3d4E5f6", 4) + " (a task id, not sk-)",
		"ASIA PACIFIC, AKIA123 (too short), AKIA" + strings.Repeat("X", 20) + " (too long)",
		"mail me at dev@example.com; git@github.com:org/repo.git; npm i @scope/pkg; go get x@v1.2.3",
		"https://github.com/org/repo/blob/main/x.go#L10 and postgres://localhost:5432/db",
		"ctxkeep --token=abc123 (a flag, not a URL); client(token=token, password=pw)",
		"https://h/p?page_token=$NEXT&secret={secret}&password=<password>&token=***",
		"sk-short; ghp_short; glpat-short; xoxb-1; eyJhbGciOi without dots; AIzaShort",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"aws_secret_access_key = ${AWS_SECRET}",
		strings.Repeat("=== RUN   TestCase_with-hyphens_and_underscores=1 @ I z J\n", 50),
	} {
		got := String(in)
		if got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
			continue
		}
		if len(in) > 0 && unsafe.StringData(got) != unsafe.StringData(in) {
			t.Errorf("String(%q) returned a copy", in)
		}
		if n := testing.AllocsPerRun(10, func() { String(in) }); n != 0 {
			t.Errorf("String(%q) allocates %v times", in, n)
		}
		if Contains(in) {
			t.Errorf("Contains(%q) is true", in)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"token after an escaped newline", `{"command":"echo hi\n` + ghToken + `","timeout":5}`,
			`{"command":"echo hi\n[redacted:github-token]","timeout":5}`},
		{"aws secret as a member", `{"AccessKeyId": "` + awsID + `", "aws_secret_access_key": "` + awsSecret + `"}`,
			`{"AccessKeyId": "[redacted:aws-access-key]", "aws_secret_access_key": "[redacted:aws-secret-key]"}`},
		{"pem with escaped newlines", `{"content":"` + strings.ReplaceAll(pemKey, "\n", `\n`) + `","n":[1,2]}`,
			`{"content":"[redacted:private-key]\n\n\n","n":[1,2]}`},
		{"no secret, escapes kept", `{"a":"x\u0041\n","b":"<&>"}`, `{"a":"x\u0041\n","b":"<&>"}`},
		{"not JSON", "url https://u:pw1234@h", "url https://u:[redacted:url-password]@h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(JSON([]byte(tt.in)))
			if got != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Errorf("no longer valid JSON: %s", got)
			}
		})
	}
	clean := []byte(`{"command":"go test ./...","description":"run the tests"}`)
	if got := JSON(clean); unsafe.SliceData(got) != unsafe.SliceData(clean) {
		t.Error("JSON copied a document without secrets")
	}
}
