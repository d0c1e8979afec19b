package pin

import (
	"fmt"
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
	Line   int    // 1-based line of the prompt
	Text   string // the line as typed, trimmed
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
		return []Directive{d}, true, nil
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

// parseArgs reads "TARGET [options]" after the prefix.
func parseArgs(s string, line int, text string) (Directive, error) {
	d := Directive{Level: DefaultLevel, Line: line, Text: text}
	fail := func(format string, args ...any) (Directive, error) {
		return Directive{}, &SyntaxError{Line: line, Text: text, Msg: fmt.Sprintf(format, args...)}
	}
	toks, err := tokens(s)
	if err != nil {
		return fail("%v", err)
	}
	if len(toks) == 0 {
		return fail("say what to pin: last, next, start, end or an output id")
	}
	target := strings.ToLower(toks[0].word)
	switch {
	case toks[0].key != "":
		return fail("say what to pin before %s=: last, next, start, end or an output id", toks[0].key)
	case target == string(Last) || target == string(Next) || target == string(Start) || target == string(End):
		d.Target = Target(target)
	case isID(target):
		d.Target, d.ID = ByID, target
	default:
		return fail("unknown target %q: want last, next, start, end or an output id", toks[0].word)
	}
	if d.Target == End && len(toks) > 1 {
		return fail("end takes no level or reason")
	}
	seen := map[string]bool{}
	for _, t := range toks[1:] {
		key := t.key
		if key == "" {
			if _, err := ctxkeep.ParsePinLevel(strings.ToLower(t.word)); err != nil {
				return fail("unexpected %q: quote a reason that has spaces, reason=\"…\"", t.word)
			}
			key = "level"
		}
		if seen[key] {
			return fail("%s given twice", key)
		}
		seen[key] = true
		switch key {
		case "level":
			l, err := ctxkeep.ParsePinLevel(strings.ToLower(t.word))
			if err != nil {
				return fail("%v", err)
			}
			d.Level = l
		case "reason":
			d.Reason = t.word
		default:
			return fail("unknown option %q: want level= or reason=", key)
		}
	}
	return d, nil
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

// tokens splits s on blanks. A value may be quoted with "…" or '…', with
// \" and \\ escapes inside double quotes.
func tokens(s string) ([]token, error) {
	var out []token
	for {
		s = strings.TrimLeft(s, " \t\r")
		if s == "" {
			return out, nil
		}
		var t token
		end := strings.IndexAny(s, " \t\r=\"'")
		if end >= 0 && s[end] == '=' {
			t.key, s = strings.ToLower(s[:end]), s[end+1:]
			if t.key == "" {
				return nil, fmt.Errorf("missing option name before =")
			}
		}
		word, rest, err := value(s, t.key)
		if err != nil {
			return nil, err
		}
		t.word, s = word, rest
		out = append(out, t)
	}
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
