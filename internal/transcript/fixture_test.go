package transcript

import (
	"fmt"
	"strings"
	"testing"
)

// Fixture lines carry only the fields a rule looks at. Texts must be plain
// ASCII: %q writes them as JSON strings.

func userLine(uuid, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"message":{"role":"user","content":%q}}`, uuid, text)
}

func metaLine(uuid, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"isMeta":true,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`, uuid, text)
}

func textLine(uuid, msgID, text string) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"message":{"id":%q,"role":"assistant","model":"m","content":[{"type":"text","text":%q}],"usage":{"input_tokens":1,"output_tokens":1}}}`, uuid, msgID, text)
}

func useLine(uuid, msgID, toolID, name string) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"message":{"id":%q,"role":"assistant","model":"m","content":[{"type":"tool_use","id":%q,"name":%q,"input":{"n":1}}],"usage":{"input_tokens":1,"output_tokens":1}}}`, uuid, msgID, toolID, name)
}

func resultLine(uuid, toolID, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q}]},"toolUseResult":{"stdout":%q}}`, uuid, toolID, text, text)
}

// sidechain marks a fixture line as a subagent's.
func sidechain(line string) string {
	return strings.Replace(line, `{"type":`, `{"isSidechain":true,"agentId":"a1","type":`, 1)
}

// records reads fixture lines, failing on any problem.
func records(t *testing.T, lines ...string) []Record {
	t.Helper()
	sc := NewScanner(strings.NewReader(strings.Join(lines, "\n")+"\n"), Cursor{})
	var recs []Record
	for sc.Scan() {
		recs = append(recs, sc.Record())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if p := sc.Problems(); len(p) > 0 {
		t.Fatalf("fixture problems: %v", p)
	}
	return recs
}

// readFixture reads a file of testdata.
func readFixture(t *testing.T, name string) []Record {
	t.Helper()
	f, err := ReadFile("testdata/"+name, Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) > 0 {
		t.Fatalf("fixture problems: %v", f.Problems)
	}
	return f.Records
}

// ids lists the records' uuids, or their types for those without one.
func ids(recs []Record) string {
	ptrs := make([]*Record, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	return ptrIDs(ptrs)
}

func ptrIDs(recs []*Record) string {
	var s []string
	for _, r := range recs {
		if r.UUID == "" {
			s = append(s, r.Type)
		} else {
			s = append(s, r.UUID)
		}
	}
	return strings.Join(s, " ")
}
