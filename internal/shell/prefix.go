package shell

import "strings"

// prefixWords is how many of words belong to a command that only runs
// the command after it (`sudo -u bob make` → 3), or 0 when words[0] is
// not one. Options are read as the tool's manual has them; an option it
// does not know is taken as a flag without a value.
func prefixWords(words []string) int {
	n := 0
	switch words[0] {
	case "sudo", "doas":
		n = 1 + options(words[1:], "ugCDhprtUTRc")
	case "nice":
		n = 1 + options(words[1:], "n")
	case "ionice":
		n = 1 + options(words[1:], "cnp")
	case "nohup", "builtin":
		n = 1
	case "time": // as a program (/usr/bin/time is not the keyword, but `\time` is)
		n = 1 + options(words[1:], "fo")
	case "stdbuf":
		n = 1 + options(words[1:], "ioe")
	case "xargs":
		n = 1 + options(words[1:], "IELnPsda")
	case "timeout":
		n = 1 + options(words[1:], "sk")
		if n < len(words) {
			n++ // the duration
		}
	case "command":
		if len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return 0 // a lookup: `command -v go` prints where go is
		}
		n = 1 + options(words[1:], "")
	case "env":
		n = 1
		for n < len(words) {
			w := words[n]
			switch {
			case w == "-u" || w == "-C" || w == "--unset" || w == "--chdir":
				n += 2
			case w == "-S" || w == "--split-string" || strings.HasPrefix(w, "--split-string="):
				return len(words) // the command is in one word, split by env
			case w == "--":
				n++
				return min(n, len(words))
			case strings.HasPrefix(w, "-"):
				n++
			case strings.IndexByte(w, '=') > 0:
				n++ // NAME=value
			default:
				return n
			}
		}
	default:
		return 0
	}
	return min(n, len(words))
}

// options counts the options at the start of args: words that start with
// '-', a short one of withValue taking the word after it as its value
// (unless attached: -uroot), up to and including "--".
func options(args []string, withValue string) int {
	n := 0
	for n < len(args) {
		a := args[n]
		switch {
		case a == "--":
			return n + 1
		case len(a) < 2 || a[0] != '-':
			return n
		case len(a) == 2 && strings.IndexByte(withValue, a[1]) >= 0:
			n += 2
		default:
			n++
		}
	}
	return min(n, len(args))
}
