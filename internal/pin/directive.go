package pin

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxkeep/ctxkeep"
)

// Target says which stored outputs a directive pins.
type Target string

const (
	Last  Target = "last"  // the session's latest stored output
	Next  Target = "next"  // the session's next stored output
	Start Target = "start" // every output stored from now on, until End
	End   Target = "end"   // closes the range Start opened
	ByID  Target = "id"    // the output whose id (or unique prefix) is Directive.ID
)

// Directive is one pin instruction typed in a prompt.
type Directive struct {
	Target Target
	ID     string // for ByID
	Level  ctxkeep.PinLevel
	Reason string
	// LevelSet says the level was given: without one, a pin never lowers
	// the level an output already has.
	LevelSet bool
	// Rest is the text after the directive's options on its line, the
	// user's words for the model ("please continue"), "" when none.
	Rest string
	Line int    // 1-based line of the prompt
	Text string // the line as typed, trimmed
}

// Prefix starts a directive line.
const Prefix = "ccm:pin"

// SlashCommands maps the client's custom commands ctxkeep installs to the
// directive each stands for.
var SlashCommands = map[string]Target{
	"pin-last": Last, "pin-next": Next, "pin-start": Start, "pin-end": End,
}

// Usage is how to write a directive, for error messages.
const Usage = `ccm:pin last|next|start|end|ID [none|soft|hard] [level=none|soft|hard] [reason="…"]`

// SyntaxError reports a directive that could not be read.
type SyntaxError struct {
	Line int    // 1-based line of the prompt
	Text string // the line, trimmed
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d %q: %s", e.Line, e.Text, e.Msg)
}

// PluginNamespace prefixes the slash commands when ctxkeep is installed as a
// plugin: the client names them /ctxkeep:pin-last and so on.
const PluginNamespace = "ctxkeep:"

// Mentions reports cheaply whether prompt may hold directives: the hook
// calls it on every prompt and parses only when it says yes.
func Mentions(prompt string) bool {
	if strings.Contains(prompt, Prefix) {
		return true
	}
	p := strings.TrimPrefix(strings.TrimLeftFunc(prompt, unicode.IsSpace), "/")
	return strings.HasPrefix(strings.TrimPrefix(p, PluginNamespace), "pin-")
}

// Parse finds the pin directives of a prompt: every line that starts with
// "ccm:pin", or the whole prompt when it is one of the slash commands
// (/pin-last ARGS: the client hands hooks the command as typed, not its
// expansion). A mention of ccm:pin inside a sentence is not a directive.
//
// only reports that the prompt holds nothing but directives and blank
// lines, so that it need not reach the model. On a syntax error, err is a
// *SyntaxError and no directive is returned: a prompt with one bad
// directive pins nothing.
func Parse(prompt string) (ds []Directive, only bool, err error) {
	if d, ok, err := parseSlash(prompt); ok || err != nil {
		if err != nil {
			return nil, true, err
		}
		return []Directive{d}, d.Rest == "", nil
	}
	only = true
	for i, line := range strings.Split(prompt, "\n") {
		text := strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(text, Prefix)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			only = only && text == ""
			continue
		}
		d, derr := parseArgs(rest, i+1, text)
		if derr != nil && err == nil {
			err = derr
		}
		if d.Rest != "" {
			only = false // the line has words for the model
		}
		ds = append(ds, d)
	}
	if err != nil {
		return nil, only, err
	}
	return ds, only && len(ds) > 0, nil
}

// parseSlash reads a prompt that is one of the slash commands; ok is false
// for any other prompt.
func parseSlash(prompt string) (d Directive, ok bool, err error) {
	text := strings.TrimSpace(prompt)
	name, args, _ := strings.Cut(blanks.Replace(text), " ")
	cmd, slash := strings.CutPrefix(name, "/")
	target, ok := SlashCommands[strings.TrimPrefix(cmd, PluginNamespace)]
	if !slash || !ok {
		return d, false, nil
	}
	d, err = parseArgs(string(target)+" "+args, 1, text)
	return d, true, err
}

// blanks turns the line breaks and tabs of a slash command's arguments
// into spaces.
var blanks = strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ", "\r", " ")

// parseArgs reads "TARGET [options] [text]" after the prefix. The options
// end at the first bare word that is not a level: from there on, the rest
// of the line is the user's text for the model (Directive.Rest), "ccm:pin
// last hard reason="deploy log" please continue". Such a word right after
// the target (an unquoted reason?), or one that looks like a misspelt
// level, is an error, not text.
func parseArgs(s string, line int, text string) (Directive, error) {
	d := Directive{Level: DefaultLevel, Line: line, Text: text}
	fail := func(format string, args ...any) (Directive, error) {
		return Directive{}, &SyntaxError{Line: line, Text: text, Msg: fmt.Sprintf(format, args...)}
	}
	first, s, err := nextToken(s)
	switch {
	case err != nil:
		return fail("%v", err)
	case first == nil:
		return fail("say what to pin: last, next, start, end or an output id")
	}
	target := strings.ToLower(first.word)
	switch {
	case first.key != "":
		return fail("say what to pin before %s=: last, next, start, end or an output id", first.key)
	case target == string(Last) || target == string(Next) || target == string(Start) || target == string(End):
		d.Target = Target(target)
	case isID(target):
		d.Target, d.ID = ByID, target
	default:
		return fail("unknown target %q: want last, next, start, end or an output id", first.word)
	}
	seen := map[string]bool{}
	for {
		rest := strings.TrimLeft(s, " \t\r")
		if rest == "" {
			return d, nil
		}
		var t token
		if isOption(rest) {
			tok, after, err := nextToken(rest)
			if err != nil {
				return fail("%v", err)
			}
			t, s = *tok, after
		} else {
			word := strings.Fields(rest)[0]
			if _, err := ctxkeep.ParsePinLevel(strings.ToLower(word)); err != nil {
				if like := lookalike(word); like != "" {
					return fail("unknown level %q: did you mean %s?", word, like)
				}
				if d.Target == End {
					return fail("end takes no level or reason")
				}
				if len(seen) == 0 { // right after the target: a reason without reason=?
					return fail("unexpected %q: quote a reason that has spaces, reason=\"…\" (words for the model may follow the level or the reason)", word)
				}
				d.Rest = rest // the user's text, for the model
				return d, nil
			}
			t, s = token{key: "level", word: word}, rest[len(word):]
		}
		if d.Target == End {
			return fail("end takes no level or reason")
		}
		if seen[t.key] {
			return fail("%s given twice", t.key)
		}
		seen[t.key] = true
		switch t.key {
		case "level":
			l, err := ctxkeep.ParsePinLevel(strings.ToLower(t.word))
			if err != nil {
				return fail("%v", err)
			}
			d.Level, d.LevelSet = l, true
		case "reason":
			d.Reason = t.word
		default:
			return fail("unknown option %q: want level= or reason=", t.key)
		}
	}
}

// isOption reports whether s starts with key=, a name of letters.
func isOption(s string) bool {
	i := strings.IndexByte(s, '=')
	if i < 0 {
		return false
	}
	for _, r := range s[:i] {
		if !unicode.IsLetter(r) && r != '_' {
			return false
		}
	}
	return true
}

// lookalike is the level a word is a likely misspelling of ("hrad",
// "sfot", "Hard!"), "" for any other word.
func lookalike(word string) string {
	w := strings.ToLower(strings.Trim(word, ".,;:!?"))
	for _, level := range []string{"none", "soft", "hard"} {
		if w == level || (len(w) == len(level) && sameLetters(w, level)) || editDistance(w, level) == 1 {
			return level
		}
	}
	return ""
}

func sameLetters(a, b string) bool {
	x, y := []byte(a), []byte(b)
	slices.Sort(x)
	slices.Sort(y)
	return string(x) == string(y)
}

// editDistance is the Levenshtein distance of two short words.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// isID reports whether s can be an output id or a prefix of one: at least
// four of its hex digits.
func isID(s string) bool {
	if len(s) < 4 || len(s) > 12 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// token is a bare word or key=value; word is the value, unquoted.
type token struct {
	key, word string
}

// nextToken reads the token at the start of s (after blanks): a bare
// word or key=value, where a value may be quoted with "…" or '…', with \"
// and \\ escapes inside double quotes. It returns nil at the end of s.
func nextToken(s string) (*token, string, error) {
	s = strings.TrimLeft(s, " \t\r")
	if s == "" {
		return nil, "", nil
	}
	var t token
	end := strings.IndexAny(s, " \t\r=\"'")
	if end >= 0 && s[end] == '=' {
		t.key, s = strings.ToLower(s[:end]), s[end+1:]
		if t.key == "" {
			return nil, "", fmt.Errorf("missing option name before =")
		}
	}
	word, rest, err := value(s, t.key)
	if err != nil {
		return nil, "", err
	}
	t.word = word
	return &t, rest, nil
}

// value reads one value at the start of s: quoted, or up to the next blank.
func value(s, key string) (word, rest string, err error) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		end := strings.IndexAny(s, " \t\r")
		if end < 0 {
			end = len(s)
		}
		if strings.ContainsAny(s[:end], "\"'") {
			return "", "", fmt.Errorf("a quote inside %q: quote the whole value", s[:end])
		}
		if key != "" && end == 0 {
			return "", "", fmt.Errorf("%s= has no value", key)
		}
		return s[:end], s[end:], nil
	}
	quote := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote:
			if i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' && s[i+1] != '\r' {
				return "", "", fmt.Errorf("no space after the closing quote")
			}
			return b.String(), s[i+1:], nil
		case c == '\\' && quote == '"' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("missing closing %c", quote)
}
