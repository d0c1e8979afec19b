package outline

import (
	"bytes"
	"strings"
)

// Formats read line by line, without a lexer: their outline is their
// headings, targets or sections.

var markdownLang = &language{scan: markdownScan}

// markdownScan returns a Markdown document's headings, ATX (## Title) and
// setext (Title over ===), skipping front matter, code blocks and HTML
// comments, where a # line is not a heading.
func markdownScan(src []byte) []Symbol {
	var syms []Symbol
	var fence []byte                // the open code fence: ``` or ~~~~, …
	inFront := false                // in YAML front matter
	inComment := false              // in <!-- … -->
	para, paraNum := []byte(nil), 0 // the paragraph line above, for setext headings
	for num, b := range lines(src) {
		l := newLine(b)
		text := l.b[l.head:]
		prev, prevNum := para, paraNum
		para = nil
		switch {
		case num == 1 && string(b) == "---":
			inFront = true
		case inFront:
			inFront = string(b) != "---" && string(b) != "..."
		case fence != nil:
			if l.indent <= 3 && bytes.HasPrefix(text, fence) && len(bytes.Trim(text, string(fence[:1])+" \t")) == 0 {
				fence = nil
			}
		case inComment:
			inComment = !bytes.Contains(b, []byte("-->"))
		case l.indent > 3 || len(text) == 0:
			// Indented code, or a blank line: ends a paragraph.
		case bytes.HasPrefix(text, []byte("```")) || bytes.HasPrefix(text, []byte("~~~")):
			n := 3
			for n < len(text) && text[n] == text[0] {
				n++
			}
			fence = text[:n]
		case bytes.HasPrefix(text, []byte("<!--")):
			inComment = !bytes.Contains(text, []byte("-->"))
		case text[0] == '#':
			level := 1
			for level < len(text) && text[level] == '#' {
				level++
			}
			if level > 6 || level < len(text) && text[level] != ' ' && text[level] != '\t' {
				para, paraNum = text, num // #hashtag: text
				break
			}
			title := bytes.TrimSpace(text[level:])
			if t := bytes.TrimRight(title, "#"); len(t) == 0 || t[len(t)-1] == ' ' || t[len(t)-1] == '\t' {
				title = bytes.TrimSpace(t) // closing sequence: ## Title ##
			}
			syms = append(syms, Symbol{Line: num, Depth: level - 1, Kind: "heading", Name: cleanText(title, false), Text: cleanText(text, false)})
		case prev != nil && underline(text) != 0:
			level := underline(text)
			title := cleanText(prev, false)
			syms = append(syms, Symbol{Line: prevNum, Depth: level - 1, Kind: "heading", Name: title, Text: title})
		default:
			if !listOrQuote(text) {
				para, paraNum = text, num
			}
		}
	}
	return syms
}

// underline returns 1 for a setext === line, 2 for ---, 0 for neither.
func underline(b []byte) int {
	b = bytes.TrimRight(b, " \t")
	if len(b) < 2 || (b[0] != '=' && b[0] != '-') || len(bytes.Trim(b, string(b[:1]))) != 0 {
		return 0
	}
	if b[0] == '=' {
		return 1
	}
	return 2
}

// listOrQuote reports whether a line is a list item, a quote, a table row
// or HTML: none of them becomes a setext heading here.
func listOrQuote(b []byte) bool {
	switch b[0] {
	case '>', '|', '<', '-', '*', '+':
		return true
	}
	i := 0
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i > 0 && i < len(b) && (b[i] == '.' || b[i] == ')')
}

var makeLang = &language{scan: makeScan}

// makeScan returns a Makefile's targets: name: at the start of a line, not
// a variable (x := y) nor a special target (.PHONY).
func makeScan(src []byte) []Symbol {
	var syms []Symbol
	inDefine := false
	for num, b := range lines(src) {
		switch {
		case inDefine:
			inDefine = !bytes.HasPrefix(bytes.TrimSpace(b), []byte("endef"))
			continue
		case bytes.HasPrefix(b, []byte("define ")):
			inDefine = true
			continue
		case len(b) == 0 || b[0] == '\t' || b[0] == '#' || b[0] == ' ' || b[0] == '.':
			continue
		}
		line := b[:min(len(b), maxHead)]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || bytes.IndexByte(line[:colon], '=') >= 0 || colon+1 < len(line) && line[colon+1] == '=' {
			continue
		}
		name := bytes.TrimSpace(line[:colon])
		if bytes.HasPrefix(name, []byte("export ")) || bytes.HasPrefix(name, []byte("override ")) {
			continue
		}
		text := line
		if i := bytes.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		syms = append(syms, Symbol{Line: num, Kind: "target", Name: cleanText(name, false), Text: cleanText(text, false)})
	}
	return syms
}

var dockerLang = &language{scan: dockerScan}

// dockerScan returns a Dockerfile's stages: FROM image [AS name].
func dockerScan(src []byte) []Symbol {
	var syms []Symbol
	for num, b := range lines(src) {
		l := newLine(b)
		c := at(&l)
		if !wordFold(&c, "from") {
			continue
		}
		for c.at("--") { // --platform=…
			for !c.done() && c.peek() != ' ' && c.peek() != '\t' {
				c.i++
			}
			c.space()
		}
		fields := strings.Fields(string(c.rest()))
		if len(fields) == 0 {
			continue
		}
		name := fields[0]
		if len(fields) >= 3 && strings.EqualFold(fields[1], "as") {
			name = fields[2]
		}
		syms = append(syms, Symbol{Line: num, Kind: "stage", Name: cleanText([]byte(name), false), Text: cleanText(l.b[l.head:], false)})
	}
	return syms
}

var sectionLang = &language{scan: sectionScan}

// sectionScan returns the [sections] and [[tables]] of TOML and INI files,
// skipping TOML's multi-line strings. A TOML table's depth is its number
// of dots: [tool.ruff.lint] is 2.
func sectionScan(src []byte) []Symbol {
	var syms []Symbol
	var inString string // the """ or ''' of an open multi-line string
	for num, b := range lines(src) {
		l := newLine(b)
		text := l.b[l.head:]
		if inString != "" {
			if bytes.Contains(b, []byte(inString)) {
				inString = ""
			}
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if bytes.Count(b, []byte(q))%2 == 1 {
				inString = q
			}
		}
		if len(text) < 3 || text[0] != '[' {
			continue
		}
		end := bytes.IndexByte(text, ']')
		if end < 0 {
			continue
		}
		name := bytes.TrimSpace(bytes.Trim(text[:end+1], "[]"))
		after := bytes.TrimSpace(bytes.TrimPrefix(text[end+1:], []byte("]")))
		if len(name) == 0 || bytes.IndexByte(name, ',') >= 0 || len(after) > 0 && after[0] != '#' && after[0] != ';' {
			continue // a value: [1, 2] in an array
		}
		syms = append(syms, Symbol{Line: num, Depth: bytes.Count(name, []byte(".")), Kind: "section", Name: cleanText(name, false), Text: cleanText(text[:min(len(text), end+2)], false)})
	}
	return syms
}
