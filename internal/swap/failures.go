package swap

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// A view never hides a failure, and a failure is more than the line that
// marks it: after compaction, "--- FAIL: TestRefundRounding" says that
// something broke, "refund_test.go:42: got 1999 want 2000" says what. So a
// failure is its marker (markers.go) and its causes — the assertion and
// its values, the error message, the file:line where it happened — looked
// for near the marker, in the shapes each tool prints them (docs/SWAP.md
// lists them). Views, `ctxkeep show --failures` and the working state all
// read failures from here.

// HasFailures reports whether a tool's output is the output of a run,
// where failure lines mean something. A file's content (Read) or a search
// result (Grep, Glob) is not: a line of code that says "error" is no
// failure.
func HasFailures(tool string) bool {
	return tool != "Read" && tool != "Grep" && tool != "Glob"
}

// Line is one line of an output, numbered from 1.
type Line struct {
	N    int
	Text string
}

// Failure is one failure in the output of a run: the line that marks it
// and the lines that give its cause, in the order of the output.
type Failure struct {
	Marker Line
	Causes []Line
	first  int // index in Causes of the one that says most
}

// FirstCause is the cause that says most: the first message (an error,
// an assertion, a test's log line), else the first cause.
func (f Failure) FirstCause() (Line, bool) {
	if f.first < len(f.Causes) {
		return f.Causes[f.first], true
	}
	return Line{}, false
}

// Lines returns the marker and the causes in the order of the output
// (go test -v logs a test's causes before its "--- FAIL").
func (f Failure) Lines() []Line {
	out := append(make([]Line, 0, 1+len(f.Causes)), f.Causes...)
	i, _ := slices.BinarySearchFunc(out, f.Marker.N, func(l Line, n int) int { return l.N - n })
	return slices.Insert(out, i, f.Marker)
}

// Count counts the failures of an output and their lines.
type Count struct {
	Failures int
	Lines    int // markers and causes
}

// Failures returns the first max failures of text (all when max < 0), in
// the order of the output, and counts them all.
func Failures(text string, max int) ([]Failure, Count) {
	return findFailures(text, splitLines(text), max)
}

// KeyLines returns at most n lines of fs, in the order of the output:
// first the marker and first cause of each failure that has causes, then
// the markers of those that have none (an exit status, a summary's count,
// the name of a test whose cause is elsewhere), then the other causes, the
// second of each failure before the third of any. Where not all fit, the first cause of a failure is worth more than the
// marker of one more (whose count the caller gives).
func KeyLines(fs []Failure, n int) []Line {
	p := byPriority(fs)
	p = p[:min(max(n, 0), len(p))]
	slices.SortFunc(p, func(a, b Line) int { return a.N - b.N })
	return p
}

// byPriority lists the lines of fs in the order they deserve room.
func byPriority(fs []Failure) []Line {
	var out []Line
	for _, f := range fs {
		if c, ok := f.FirstCause(); ok {
			out = append(out, f.Marker, c)
		}
	}
	for _, f := range fs {
		if len(f.Causes) == 0 {
			out = append(out, f.Marker)
		}
	}
	for rank := 0; ; rank++ { // the other causes: the second of each failure, then the third…
		more := false
		for _, f := range fs {
			k := rank
			if k >= f.first {
				k++ // the first cause is listed already
			}
			if k < len(f.Causes) {
				out = append(out, f.Causes[k])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// cause is what a line near a marker says of its failure.
type cause uint8

const (
	noCause cause = iota
	why           // what failed and how: the message, the assertion, the test's log line
	detail        // more of it: values, a diff, a generic "Assertion with == failed"
	where         // a location: file:line, a frame
)

const (
	maxCauses    = 10  // causes kept per failure
	maxWhere     = 2   // of which locations
	maxContinued = 4   // lines that continue one log line, diagnostic or diff
	window       = 50  // lines after a marker where its causes are looked for
	longWindow   = 400 // after a traceback or a pytest header, which print source first
	goLogAbove   = 200 // lines above a "--- FAIL" where its go test -v log is looked for
)

// scan is one output being read for failures.
type scan struct {
	lines   []string
	kinds   []marker // what each line starts; claimed once it is a cause
	scratch causes   // the causes of the failure being read
}

// findFailures is Failures for text already split into lines. The marker
// rules run only on the lines the anchor pre-scan marks; causes are looked
// for only near markers.
func findFailures(text string, lines []string, max int) (fs []Failure, c Count) {
	s := &scan{lines: lines, kinds: make([]marker, len(lines))}
	s.scratch.s = s
	content := diffContent(text, lines)
	for i, ok := range candidates(text, lines) {
		if ok && (content == nil || !content[i]) {
			s.kinds[i] = classify(lines[i])
		}
	}
	var above map[int]*causes
	if strings.Contains(text, "=== RUN") { // go test -v: a test's log comes before its "--- FAIL"
		above = s.goTestLogs()
	}
	for i := range s.kinds {
		k := s.kinds[i] // read each time: the failures before may have claimed it
		if k == noMarker || k == claimed {
			continue
		}
		b := s.causesOf(i, k, above[i])
		c.Failures++
		c.Lines += 1 + len(b.lines)
		if max < 0 || len(fs) < max {
			fs = append(fs, b.failure(i))
		}
	}
	return fs, c
}

// diffContent marks the lines inside the hunks of a unified diff ("@@
// -1,4 +1,5 @@" and the lines it counts), or is nil when text has none:
// what a diff adds or removes is content, not a failure, even when it
// holds "exit status 1" or "--- FAIL". A hunk ends where its counts say,
// so a test runner's "--- FAIL" printed after a diff is not taken for a
// removed line.
func diffContent(text string, lines []string) []bool {
	if !strings.HasPrefix(text, "@@ -") && !strings.Contains(text, "\n@@ -") {
		return nil
	}
	var in []bool
	for i := 0; i < len(lines); i++ {
		old, added, ok := hunkHeader(lines[i])
		if !ok {
			continue
		}
		if in == nil {
			in = make([]bool, len(lines))
		}
		for i+1 < len(lines) && (old > 0 || added > 0) && inHunk(lines[i+1], &old, &added) {
			i++
			in[i] = true
		}
	}
	return in
}

// inHunk reports whether l is the next line of a hunk with old and added
// lines left to come, and counts it.
func inHunk(l string, old, added *int) bool {
	switch {
	case l == "" || l[0] == ' ': // context (an empty one may have lost its space)
		if *old == 0 || *added == 0 {
			return false
		}
		*old, *added = *old-1, *added-1
	case l[0] == '-' && *old > 0:
		*old--
	case l[0] == '+' && *added > 0:
		*added--
	case l[0] != '\\': // "\ No newline at end of file" belongs to the hunk
		return false
	}
	return true
}

// hunkHeader reads a unified diff's hunk header, "@@ -a[,b] +c[,d] @@…":
// how many old and new lines the hunk holds (b and d, 1 when left out).
func hunkHeader(l string) (old, added int, ok bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return 0, 0, false
	}
	ranges, _, found := strings.Cut(rest, " @@")
	oldRange, newRange, found2 := strings.Cut(ranges, " +")
	if !found || !found2 {
		return 0, 0, false
	}
	old, ok1 := rangeCount(oldRange)
	added, ok2 := rangeCount(newRange)
	return old, added, ok1 && ok2
}

// rangeCount is the line count of a hunk range "start[,count]".
func rangeCount(r string) (int, bool) {
	start, count, found := strings.Cut(r, ",")
	if _, err := strconv.Atoi(start); err != nil {
		return 0, false
	}
	if !found {
		return 1, true
	}
	n, err := strconv.Atoi(count)
	return n, err == nil && n >= 0
}

// causes gathers the causes of one failure.
type causes struct {
	s      *scan
	lines  []int
	kinds  []cause
	wheres int
}

// add takes line j as a cause, unless another failure has it or there are
// enough of its kind.
func (b *causes) add(j int, k cause) {
	if b.full() || b.s.kinds[j] == claimed || k == where && b.wheres == maxWhere {
		return
	}
	if k == where {
		b.wheres++
	}
	b.s.kinds[j] = claimed
	b.lines = append(b.lines, j)
	b.kinds = append(b.kinds, k)
}

func (b *causes) full() bool { return len(b.lines) == maxCauses }

func (b *causes) reset() {
	b.lines, b.kinds, b.wheres = b.lines[:0], b.kinds[:0], 0
}

// failure is the failure marked at line i, with these causes.
func (b *causes) failure(i int) Failure {
	f := Failure{Marker: b.s.line(i), first: max(slices.Index(b.kinds, why), 0)}
	for _, j := range b.lines {
		f.Causes = append(f.Causes, b.s.line(j))
	}
	return f
}

// causesOf finds the causes of the failure marked at line i (of kind k),
// after those found above it; they are good until the next call.
func (s *scan) causesOf(i int, k marker, above *causes) *causes {
	b := &s.scratch
	b.reset()
	if above != nil {
		b.lines, b.kinds, b.wheres = append(b.lines, above.lines...), append(b.kinds, above.kinds...), above.wheres
	}
	switch k {
	case goPanic:
		s.panicCauses(b, i)
	case traceback:
		s.tracebackCause(b, i)
	case bare:
	default:
		span := window
		if k == pyTest {
			span = longWindow
		}
		s.causesIn(b, i, min(len(s.lines), i+1+span))
	}
	return b
}

func (s *scan) line(i int) Line { return Line{N: i + 1, Text: s.lines[i]} }

// causesIn looks for causes in the lines after line from, up to line to
// (excluded), until the next failure or a line that ends the block: an
// error message, the lines of a test's log (with those indented under
// them), an assertion's values, a diff, a location; and the line after
// one that ends with a colon ("panicked at src/lib.rs:2:5:", "Caused by:").
func (s *scan) causesIn(b *causes, from, to int) {
	mt := plain(s.lines[from])
	colon := strings.HasSuffix(mt, ":")
	cont, continued := -1, 0 // indentation of the line deeper ones continue; how many did
	if strings.Contains(mt, "error TS") {
		cont = indent(s.lines[from])
	}
	diff := false // after "+ Received", the lines of the diff
	for j := from + 1; j < to && !b.full(); j++ {
		raw := s.lines[j]
		t := plain(raw)
		k := s.kinds[j]
		switch {
		case t == "":
			cont = -1
			continue
		case k == claimed:
			continue
		case k != noMarker && k != message, endsBlock(t):
			return // the next failure, or the end of this one's block
		case cont >= 0 && indent(raw) > cont && continued < maxContinued:
			c := detail
			if k == message {
				c = why
			}
			b.add(j, c)
			continued++
			colon = false
			continue
		}
		c := causeOf(t)
		switch {
		case k == message:
			c = messageCause(t)
		case c == noCause && diff && (t[0] == '-' || t[0] == '+') && continued < maxContinued:
			c = detail
			continued++
		case c == noCause && colon:
			c = why
		}
		colon, cont = false, -1
		if c == noCause {
			continue
		}
		b.add(j, c)
		colon = strings.HasSuffix(t, ":")
		if goLogLine(t) {
			cont, continued = indent(raw), 0
		}
		if strings.HasPrefix(t, "+ Received") {
			diff, continued = true, 0
		}
	}
}

// messageCause: a generic assertion header says less than the lines
// after it ("code: assert x == y", "left: 4").
func messageCause(t string) cause {
	if strings.HasPrefix(t, "Assertion with") {
		return detail
	}
	return why
}

// whyPrefixes start a line that says what failed.
var whyPrefixes = []string{
	"code:", "→ ", "Expected:", "Received:", "Expected value:", "Received value:", "Expected length:", "Received length:",
	"Expected substring:", "Received string:", "Expected pattern:", "Expected truthy", "Expected falsy", "Expected false or nil",
	"Assertion failed", "assertion failed",
}

// detailPrefixes start a line that gives more of it.
var detailPrefixes = []string{"left:", "right:", "assertion `", "- Expected", "+ Received", "expected:", "got:"}

// causeOf says what t, near a marker, says of its failure.
func causeOf(t string) cause {
	switch {
	case goLogLine(t):
		if strings.HasSuffix(t, ":") {
			return where // testify's "x_test.go:42: ", its message on the lines under it
		}
		return why
	case hasAnyPrefix(t, whyPrefixes):
		return why
	case hasAnyPrefix(t, detailPrefixes):
		return detail
	case location(t):
		return where
	}
	return noCause
}

func hasAnyPrefix(t string, ps []string) bool {
	return slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(t, p) })
}

// goLogLine recognises a Go test's log line: "refund_test.go:42: got 1999".
func goLogLine(t string) bool {
	i := strings.Index(t, ".go:")
	if i <= 0 || strings.ContainsAny(t[:i], " :") {
		return false
	}
	j := digitsEnd(t, i+4)
	return j > i+4 && j < len(t) && t[j] == ':' && (j+1 == len(t) || t[j+1] == ' ')
}

// location recognises where a failure happened: "tests/test_x.py:12:
// AssertionError", "test/x_test.exs:42", "at Object.<anonymous>
// (src/x.test.js:42:17)", "❯ src/x.test.ts:42:17", "--> src/lib.rs:4:18",
// "└─ lib/x.ex:12: X.f/1"; not a frame of node's own or of a dependency,
// nor a compiler's warning ("x.c:20:5: warning: …").
func location(t string) bool {
	if strings.Contains(t, "warning") {
		return false
	}
	if rest, ok := strings.CutPrefix(t, "at "); ok {
		return !strings.Contains(rest, "node_modules") && !strings.Contains(rest, "node:") && hasFileLine(rest)
	}
	for _, p := range []string{"❯ ", "--> ", "└─ "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			return startsWithFileLine(rest)
		}
	}
	return startsWithFileLine(t)
}

// startsWithFileLine recognises "path/file.ext:N" at the start of t,
// followed by the end, a colon, a comma or a space.
func startsWithFileLine(t string) bool {
	i := strings.IndexByte(t, ':')
	if i <= 0 || strings.ContainsAny(t[:i], " \t(") || !strings.Contains(t[:i], ".") {
		return false
	}
	j := digitsEnd(t, i+1)
	return j > i+1 && (j == len(t) || strings.IndexByte(": ,", t[j]) >= 0)
}

// hasFileLine finds "file.ext:N" anywhere in t.
func hasFileLine(t string) bool {
	for i := strings.IndexByte(t, ':'); i >= 0; {
		if i > 0 && i+1 < len(t) && isDigit(t[i+1]) && strings.Contains(t[max(0, i-8):i], ".") {
			return true
		}
		next := strings.IndexByte(t[i+1:], ':')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// endsBlock recognises a line that ends the block of a failure: the start
// of another test, a passing test, a package's result, a section title.
func endsBlock(t string) bool {
	if t == "" || strings.IndexByte("=-oPt\xe2", t[0]) < 0 { // 0xe2 starts ✓, ✔, √ and ⎯
		return false
	}
	for _, p := range []string{"=== RUN", "=== CONT", "=== NAME", "=== PAUSE", "--- PASS", "--- SKIP", "ok  ", "ok\t", "✓", "✔", "√"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == "PASS" || titledRule(t) || strings.HasPrefix(t, "test ") && strings.HasSuffix(t, " ... ok")
}

// titledRule recognises a section title drawn with a rule: "==== FAILURES
// ====", "---- tests::x stdout ----", "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯".
func titledRule(t string) bool {
	for _, r := range []string{"===", "---", "⎯⎯"} {
		if strings.HasPrefix(t, r) && strings.HasSuffix(t, r) && strings.IndexFunc(t, unicode.IsLetter) >= 0 {
			return true
		}
	}
	return false
}

func indent(raw string) int {
	return len(raw) - len(strings.TrimLeft(raw, " \t"))
}

// panicCauses: a Go panic's repeated message (under "[recovered]"), then
// the first two frames of the project in the goroutine that panicked —
// its function and file:line, the runtime's and the testing package's
// frames skipped.
func (s *scan) panicCauses(b *causes, i int) {
	trace, frames := false, 0
	for j := i + 1; j < len(s.lines) && j <= i+2*window && frames < 2; j++ {
		raw := s.lines[j]
		t := plain(raw)
		switch k := s.kinds[j]; {
		case k == goPanic && indent(raw) > 0:
			b.add(j, detail)
		case strings.HasPrefix(t, "goroutine "):
			if trace {
				return
			}
			trace = true
		case t == "":
			if trace {
				return
			}
		case k != noMarker && k != claimed:
			return // the next failure
		case trace && strings.HasPrefix(raw, "\t") && projectFrame(s.lines[j-1], t):
			b.add(j-1, detail)
			b.add(j, why)
			frames++
		}
	}
}

// projectFrame says whether the frame of function fn, at file, is the
// project's rather than the runtime's, the testing package's or a
// dependency's.
func projectFrame(fn, file string) bool {
	fn = strings.TrimSpace(fn)
	for _, p := range []string{"runtime.", "runtime/", "testing.", "panic(", "reflect.", "sync.", "internal/", "created by "} {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	return !strings.Contains(file, "/pkg/mod/") && strings.Contains(file, ".go:")
}

// tracebackCause: a Python traceback's last line, the exception (the
// first line after it that is not indented).
func (s *scan) tracebackCause(b *causes, i int) {
	for j := i + 1; j < len(s.lines) && j <= i+longWindow; j++ {
		raw := s.lines[j]
		if strings.TrimSpace(raw) == "" || raw[0] == ' ' || raw[0] == '\t' {
			continue
		}
		if k := s.kinds[j]; k == noMarker || k == message {
			b.add(j, why)
		}
		return
	}
}

// goTestLogs finds, for every "--- FAIL: name" line, the log lines go test
// -v printed for that test above it: those under its "=== RUN", "=== CONT"
// or "=== NAME" line, up to the next such line of another test. They are
// claimed first, so that none of them (testify's "Error:" lines) starts a
// failure of its own. (Without -v, the log comes after the "--- FAIL".)
func (s *scan) goTestLogs() map[int]*causes {
	var out map[int]*causes
	var ranges [][2]int // of lines under the test's headings, from the closest up
	visits := 0         // lines read above, in all: thousands of "--- FAIL" lines must not cost 200 lines each
	for i, k := range s.kinds {
		if k != goTest || visits > 4*len(s.lines)+goLogAbove {
			continue
		}
		name, _ := goTestHeading(plain(s.lines[i]))
		ranges = ranges[:0]
		end := i
		for j := i - 1; j >= 0 && j >= i-goLogAbove; j-- {
			visits++
			t := plain(s.lines[j])
			n, run := goTestHeading(t)
			if n == "" {
				if endsPackage(t) {
					break
				}
				continue
			}
			if n == name {
				ranges = append(ranges, [2]int{j, end})
			}
			if run && n == name {
				break
			}
			end = j
		}
		b := &s.scratch
		b.reset()
		for r := len(ranges) - 1; r >= 0; r-- {
			s.causesIn(b, ranges[r][0], ranges[r][1])
		}
		if len(b.lines) > 0 {
			if out == nil {
				out = map[int]*causes{}
			}
			out[i] = &causes{s: s, lines: slices.Clone(b.lines), kinds: slices.Clone(b.kinds), wheres: b.wheres}
		}
	}
	return out
}

// goTestHeading reads "=== RUN   TestX" (run), "=== CONT  TestX",
// "=== NAME  TestX", "=== PAUSE TestX" and "--- FAIL: TestX (0.00s)"
// (PASS, SKIP): the test's name, or "".
func goTestHeading(t string) (name string, run bool) {
	for _, p := range []string{"=== RUN ", "=== CONT ", "=== NAME ", "=== PAUSE ", "--- FAIL: ", "--- PASS: ", "--- SKIP: "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			name, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
			return name, p == "=== RUN "
		}
	}
	return "", false
}

// endsPackage recognises the line go test ends a package with.
func endsPackage(t string) bool {
	return t == "PASS" || t == "FAIL" || strings.HasPrefix(t, "ok  ") || strings.HasPrefix(t, "ok\t") || strings.HasPrefix(t, "FAIL\t")
}
