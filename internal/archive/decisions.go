package archive

import (
	"strings"
	"unicode"
)

// Decisions and corrections are found by plain signals in the text, a
// sentence at a time: extractive and cheap, and never invented. They miss
// some and catch a few that are not; the preservation block says they are
// signals, not a transcript.

// decisionSignals mark a sentence of the assistant's where a choice is
// made or announced.
var decisionSignals = []string{
	"i'll use", "i will use", "i'll go with", "let's use", "let's go with", "we'll use", "we'll go with",
	"decided", "decision", "i chose", "i've chosen", "choosing", "going with", "instead of", "rather than",
	"the approach is", "the fix is", "the plan is", "root cause", "the cause is", "switch to", "switching to",
	"we should", "i'll keep", "i will keep",
}

// correctionStarts begin a user's message that sets the model right.
var correctionStarts = []string{
	"no,", "no.", "no ", "nope", "don't", "do not", "dont ", "stop", "wrong", "that's wrong", "that is wrong",
	"that's not", "that is not", "not ", "actually", "instead", "wait", "never ", "please don't", "use ",
}

// decisions returns the sentences of text that carry a decision signal.
func decisions(text string) []string {
	var out []string
	for _, s := range sentences(text) {
		lower := strings.ToLower(s)
		for _, sig := range decisionSignals {
			if strings.Contains(lower, sig) {
				out = appendNew(out, short(s, 240))
				break
			}
		}
		if len(out) == maxPerTurn {
			break
		}
	}
	return out
}

// corrections returns the user's message (its first sentences) when it
// reads as a correction: "no, use X", "don't …", "actually …".
func corrections(text string) []string {
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	for _, start := range correctionStarts {
		if strings.HasPrefix(lower, start) {
			return []string{short(firstSentences(t, 2), 300)}
		}
	}
	for _, mid := range []string{"instead of", "not what i", "i said", "i asked", "you should have", "please use"} {
		if strings.Contains(lower, mid) {
			return []string{short(firstSentences(t, 2), 300)}
		}
	}
	return nil
}

// sentences splits text into sentences and lines, skipping code blocks.
func sentences(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inCode = !inCode
			continue
		}
		if inCode || trimmed == "" {
			continue
		}
		trimmed = strings.TrimLeft(trimmed, "-*• ")
		start := 0
		for i, r := range trimmed {
			if (r == '.' || r == '!' || r == '?') && (i+1 == len(trimmed) || unicode.IsSpace(rune(trimmed[i+1]))) {
				out = appendSentence(out, trimmed[start:i+1])
				start = i + 1
			}
		}
		out = appendSentence(out, trimmed[start:])
	}
	return out
}

func appendSentence(out []string, s string) []string {
	if s = strings.TrimSpace(s); len(s) > 3 {
		out = append(out, s)
	}
	return out
}

func firstSentences(text string, n int) string {
	ss := sentences(text)
	return strings.Join(ss[:min(n, len(ss))], " ")
}
