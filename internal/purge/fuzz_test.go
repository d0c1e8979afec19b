package purge

import (
	"bytes"
	"testing"
)

// FuzzPlan purges any input: it never panics; what it writes is whole
// lines of JSON objects (or blank lines, kept as they were); two runs
// write the same; and a line it has no reason to touch comes out byte for
// byte.
func FuzzPlan(f *testing.F) {
	f.Add(session(bigFailure()).bytes())
	f.Add(session("x").bytes()[:300])
	f.Add([]byte("{\"type\":\"user\",\"uuid\":\"a\",\"parentUuid\":\"missing\"}\n\n[1,2]\n{\"type\":\"assistant\""))
	f.Add([]byte("\xef\xbb\xbf{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"x\"}]}}\r\n"))
	f.Add([]byte(`{"type":"assistant","uuid":"b","message":{"id":"m","content":[{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := Parse(data)
		tr.SessionID = testSession
		p := tr.Plan(Options{Threshold: MinThreshold})
		out, err := p.Render()
		if err != nil {
			return // a line whose object could not be edited: reported, never written half
		}
		again, _ := tr.Plan(Options{Threshold: MinThreshold}).Render()
		if !bytes.Equal(out, again) {
			t.Fatal("two purges of the same input differ")
		}
		for i, l := range Parse(out).Lines {
			if !l.Valid && !l.Blank() {
				t.Fatalf("output line %d is not a JSON object: %q", i+1, l.Raw)
			}
			if l.Torn {
				t.Fatalf("output line %d has no newline", i+1)
			}
		}
		if !p.Changes() && !bytes.Equal(out, data) {
			t.Fatal("no change planned, but the output differs")
		}
	})
}
