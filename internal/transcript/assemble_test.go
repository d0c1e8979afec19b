package transcript

import (
	"fmt"
	"strings"
	"testing"
)

func TestResponsesMergeLines(t *testing.T) {
	usage := func(out int) string {
		return fmt.Sprintf(`"usage":{"input_tokens":3,"cache_creation_input_tokens":8037,"cache_read_input_tokens":17842,"output_tokens":%d}`, out)
	}
	recs := records(t,
		// One response written block by block while its first tool ran:
		// the tool's result comes between its lines, the last line has
		// the final output count.
		`{"type":"assistant","uuid":"a1","message":{"id":"msg_A","model":"claude-opus-4-6","content":[{"type":"text","text":"\n\n"}],`+usage(10)+`}}`,
		`{"type":"assistant","uuid":"a2","message":{"id":"msg_A","model":"claude-opus-4-6","content":[{"type":"thinking","thinking":"t"}],`+usage(10)+`}}`,
		`{"type":"assistant","uuid":"a3","message":{"id":"msg_A","model":"claude-opus-4-6","content":[{"type":"text","text":"Let me look."}],`+usage(10)+`}}`,
		`{"type":"assistant","uuid":"a4","message":{"id":"msg_A","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"t1","name":"Glob","input":{}}],`+usage(10)+`}}`,
		resultLine("r1", "t1", "a.go"),
		`{"type":"assistant","uuid":"a5","message":{"id":"msg_A","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}],"stop_reason":"tool_use",`+usage(441)+`}}`,
		resultLine("r2", "t2", "package a"),
		textLine("a6", "msg_B", "Done."),
		sidechain(textLine("a7", "msg_C", "subagent")),
		`{"type":"assistant","uuid":"a8","message":{"content":"no id, string content"}}`,
		`{"type":"assistant","uuid":"a9","message":{"content":"no id either"}}`,
	)
	resps := Responses(recs)
	var got []string
	for _, r := range resps {
		got = append(got, fmt.Sprintf("%s[%s]%d", r.ID, ptrIDs(r.Records), len(r.Blocks)))
	}
	if s := strings.Join(got, " "); s != "msg_A[a1 a2 a3 a4 a5]5 msg_B[a6]1 msg_C[a7]1 [a8]1 [a9]1" {
		t.Fatalf("responses = %s", s)
	}
	a := resps[0]
	if a.Usage != (Usage{3, 8037, 17842, 441}) || a.StopReason != "tool_use" || a.Model != "claude-opus-4-6" || !a.Records[0].MainThread() {
		t.Errorf("msg_A = %+v", a)
	}
	if a.Blocks[4].Name != "Read" {
		t.Errorf("msg_A blocks %+v", a.Blocks)
	}
	if resps[2].Records[0].MainThread() {
		t.Errorf("msg_C is a subagent's response")
	}
}

func TestToolCallsPairing(t *testing.T) {
	recs := records(t,
		useLine("a1", "m1", "t1", "Bash"),
		useLine("a2", "m1", "t2", "Read"),
		textLine("a3", "m2", "thinking aloud"),
		resultLine("r2", "t2", "read result"), // out of order, and lines later
		resultLine("r0", "t0", "who asked?"),  // no tool_use: an orphan
		`{"type":"user","uuid":"r1","toolUseResult":{"x":1},"message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"exit 1"}]},{"type":"tool_result","tool_use_id":"t9","content":"nobody"}]}}`,
		useLine("a4", "m3", "t3", "Edit"), // never answered
		useLine("a5", "m4", "t4", "Bash"),
		useLine("a6", "m5", "t4", "Bash"), // the same id again
		resultLine("r4", "t4", "second"),
		resultLine("r5", "t4", "third"),
		sidechain(useLine("s1", "m6", "t6", "Grep")),
		sidechain(resultLine("s2", "t6", "found")),
	)
	calls, orphans := ToolCalls(recs)
	var got []string
	for _, c := range calls {
		s := fmt.Sprintf("%s:%s@%s", c.ID, c.Name, c.Use.UUID)
		if c.Result != nil {
			s += fmt.Sprintf("=%s(%q,err=%v,structured=%s)", c.Result.Record.UUID, c.Result.Text(), c.Result.IsError, c.Result.Structured)
		}
		got = append(got, s)
	}
	want := []string{
		`t1:Bash@a1=r1("exit 1",err=true,structured=)`, // two results on one line: whose structured output is it?
		`t2:Read@a2=r2("read result",err=false,structured={"stdout":"read result"})`,
		`t3:Edit@a4`,
		`t4:Bash@a5`,
		`t4:Bash@a6=r4("second",err=false,structured={"stdout":"second"})`,
		`t6:Grep@s1=s2("found",err=false,structured={"stdout":"found"})`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var loose []string
	for _, o := range orphans {
		loose = append(loose, o.ToolUseID+"@"+o.Record.UUID)
	}
	if s := strings.Join(loose, " "); s != "t0@r0 t9@r1 t4@r5" {
		t.Errorf("orphans = %s", s)
	}
	if calls[5].Use.MainThread() || !calls[0].Use.MainThread() {
		t.Error("main thread and subagent calls not told apart")
	}
}
