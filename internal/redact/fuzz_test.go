package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

// planted are secrets as they appear in text, each with the part that
// must never come out: a few here, and every format of the corpus.
var planted = append(corpusPlanted(), []planting{
	{text: awsID, secret: awsID},
	{text: "aws_secret_access_key=" + awsSecret, secret: awsSecret},
	{text: ghToken, secret: ghToken},
	{text: ghPAT, secret: ghPAT},
	{text: glToken, secret: glToken},
	{text: slackTok, secret: slackTok},
	{text: antKey, secret: antKey},
	{text: openaiOld, secret: openaiOld},
	{text: openaiProj, secret: openaiProj},
	{text: gKey, secret: gKey},
	{text: stripeKey, secret: stripeKey},
	{text: jwtTok, secret: jwtTok},
	{text: pemKey, secret: redacttest.PEMBody},
	{text: "https://h.io/cb?client_secret=Qm9vZ2llV29vZ2ll", secret: "Qm9vZ2llV29vZ2ll"},
	{text: "mysql://root:Sup3rS3cretPw@127.0.0.1/db", secret: "Sup3rS3cretPw"},
}...)

// planting is a secret as it appears in text, with the part that must
// never come out. line: it is recognised only as a line of its own (a
// value a configuration line assigns), so it is planted between newlines.
type planting struct {
	text, secret string
	line         bool
}

func corpusPlanted() []planting {
	var out []planting
	for _, f := range redacttest.Corpus() {
		out = append(out, planting{f.Text, f.Secret, f.Kind == Password || f.Kind == Secret})
	}
	return out
}

// FuzzString: whatever surrounds a planted secret (it standing apart, as
// secrets do: after and before a space or a line break), it never comes
// out; and on any text, String does not panic, keeps the line count, and
// changes nothing when it finds nothing.
func FuzzString(f *testing.F) {
	f.Add("", "", uint8(0), true)
	f.Add("export X=", "; echo done", uint8(2), false)
	f.Add("-----BEGIN RSA PRIVATE KEY-----\n", "\n-----END RSA PRIVATE KEY-----", uint8(12), true)
	f.Add("https://u:", "@host ?token=", uint8(14), false)
	f.Add("eyJ.eyJ.", "ghp_", uint8(11), true)
	f.Fuzz(func(t *testing.T, before, after string, which uint8, newline bool) {
		for _, text := range []string{before, before + after} {
			got := String(text)
			if strings.Count(got, "\n") != strings.Count(text, "\n") {
				t.Fatalf("line count changed: %q → %q", text, got)
			}
			if !Contains(text) && got != text {
				t.Fatalf("changed text without a secret: %q → %q", text, got)
			}
			if again := String(got); again != got {
				t.Fatalf("redacting twice changes it again: %q → %q → %q", text, got, again)
			}
		}
		p := planted[int(which)%len(planted)]
		if strings.Contains(before, p.secret) || strings.Contains(after, p.secret) {
			return // the secret is in the text around it too, where nothing says it is one
		}
		sep := " "
		if newline || p.line {
			sep = "\n"
		}
		text := before + sep + p.text + sep + after
		if got := String(text); strings.Contains(got, p.secret) {
			t.Fatalf("the planted secret survived:\n in %q\nout %q", text, got)
		}
	})
}

// FuzzJSON: a JSON document comes out valid, and a secret planted in one
// of its strings does not come out.
func FuzzJSON(f *testing.F) {
	f.Add(`{"command":"ls","n":1}`, uint8(2))
	f.Add(`["a\nb",{"k":"\u0041"}]`, uint8(12))
	f.Add(`"x"`, uint8(1))
	f.Fuzz(func(t *testing.T, doc string, which uint8) {
		out := JSON([]byte(doc))
		if json.Valid([]byte(doc)) && !json.Valid(out) {
			t.Fatalf("invalid JSON out of valid JSON:\n in %s\nout %s", doc, out)
		}
		if !json.Valid([]byte(doc)) {
			return
		}
		p := planted[int(which)%len(planted)]
		if strings.Contains(doc, p.secret) {
			return
		}
		value, _ := json.Marshal(map[string]any{"doc": json.RawMessage(doc), "output": "x\n" + p.text + "\n"})
		if got := JSON(value); strings.Contains(string(got), p.secret) || !json.Valid(got) {
			t.Fatalf("planted secret survived, or invalid JSON:\n in %s\nout %s", value, got)
		}
	})
}
