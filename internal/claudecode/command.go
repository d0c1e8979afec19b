package claudecode

import (
	"strings"
)

// IsCtxkeepCommand reports whether a hook command line runs ctxkeep's hook
// handler: its first word names a program called ctxkeep or ctxkeep-hook
// (by any path, quoted or not, with .exe on Windows) and its second word
// is "hook". This is how ctxkeep finds its own handlers among the user's,
// whichever binary path registered them (handlers registered before the
// hook executable existed run `ctxkeep hook`, and still work).
func IsCtxkeepCommand(cmd string) bool {
	words := shellWords(cmd, 2)
	if len(words) != 2 || words[1] != "hook" {
		return false
	}
	name := programName(words[0])
	return name == "ctxkeep" || name == "ctxkeep-hook"
}

// CommandProgram returns the program a hook command line runs (its first
// word, unquoted), so `ctxkeep doctor` can check that it still exists.
func CommandProgram(cmd string) string {
	if words := shellWords(cmd, 1); len(words) == 1 {
		return words[0]
	}
	return ""
}

// programName is the base name of a program path, without ".exe". Both
// slashes separate folders, since Claude Code on Windows runs hooks in Git
// Bash where either may appear.
func programName(path string) string {
	name := path[strings.LastIndexAny(path, `/\`)+1:]
	if len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
		name = name[:len(name)-4]
	}
	return name
}

// ShellQuote returns s as one word for a POSIX shell: unchanged when it is
// made only of characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuoting) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsQuoting(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+:,./-_", r)
}

// shellWords returns the first n words of a POSIX shell command line with
// their quotes and backslashes removed, or fewer when the line has fewer or
// stops parsing (an unclosed quote). It knows just enough sh to read what
// ShellQuote writes and what people type by hand.
func shellWords(line string, n int) []string {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line) && len(words) < n; i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
			continue
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return words
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case '"':
			end, ok := readDoubleQuoted(line, i+1, &word)
			if !ok {
				return words
			}
			i = end
		case '\\':
			if i+1 < len(line) {
				i++
				word.WriteByte(line[i])
			}
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord && len(words) < n {
		words = append(words, word.String())
	}
	return words
}

// readDoubleQuoted copies the inside of a double-quoted string starting at
// line[start] to word, and returns the index of the closing quote. Inside
// double quotes a backslash escapes only $, `, ", \ and newline.
func readDoubleQuoted(line string, start int, word *strings.Builder) (int, bool) {
	for i := start; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"':
			return i, true
		case c == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0:
			i++
			word.WriteByte(line[i])
		default:
			word.WriteByte(c)
		}
	}
	return 0, false
}
