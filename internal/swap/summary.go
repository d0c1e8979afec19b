package swap

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/outline"
)

// summarySection is the part of a view made for the tool: a source file's
// outline, a search's spread over files, a file list's shape. At most room
// bytes; "" when the tool has none.
func summarySection(it Item, lines []string, room int) string {
	if room <= 0 {
		return ""
	}
	switch it.Tool {
	case "Read":
		return outlineSummary(it, room)
	case "Grep":
		return grepSummary(lines, room)
	case "Glob":
		return globSummary(lines, room)
	}
	return ""
}

// outlineSummary lists the declarations of a source file with their
// lines: whole declaration lines when they all fit, else a dense list of
// names, as many as fit.
func outlineSummary(it Item, room int) string {
	syms := outline.Outline(it.FilePath, []byte(it.Text), 0)
	if len(syms) == 0 {
		return ""
	}
	title := fmt.Sprintf("outline (%s, %d declarations):\n", outline.Language(it.FilePath, []byte(it.Text)), len(syms))
	var full strings.Builder
	full.WriteString(title)
	for _, s := range syms {
		fmt.Fprintf(&full, "  L%d: %s%s\n", s.Line, strings.Repeat("  ", s.Depth), cut(s.Text, maxLine))
	}
	if full.Len() <= room {
		return full.String()
	}
	return denseOutline(title, syms, room)
}

// denseOutline writes "L6 Handler0000 · L11 Handler0001 · …" in lines of
// about maxLine bytes, as many lines as fit, then the count of the
// declarations left out.
func denseOutline(title string, syms []outline.Symbol, room int) string {
	var lines []string
	var line strings.Builder
	for _, s := range syms {
		item := fmt.Sprintf("L%d %s", s.Line, strings.ReplaceAll(cut(s.Name, 60), " · ", " "))
		if line.Len() > 0 && line.Len()+len(item)+3 > maxLine {
			lines = append(lines, line.String()+"\n")
			line.Reset()
		}
		if line.Len() == 0 {
			line.WriteString("  ")
		} else {
			line.WriteString(" · ")
		}
		line.WriteString(item)
	}
	lines = append(lines, line.String()+"\n")

	b := title
	shown := 0
	for i, l := range lines {
		count := inLineCount(l)
		more := fmt.Sprintf("  … %d more declarations\n", len(syms)-shown-count)
		last := i == len(lines)-1
		if len(b)+len(l)+len(more) > room && !(last && len(b)+len(l) <= room) {
			return fitted(b+fmt.Sprintf("  … %d more declarations\n", len(syms)-shown), room)
		}
		b += l
		shown += count
	}
	return fitted(b, room)
}

// inLineCount counts the declarations of one dense line.
func inLineCount(line string) int { return strings.Count(line, " · ") + 1 }

// grepSummary counts matches per file for "path:line:text" (or
// "path:text") output, and files for a plain file list. Gemini CLI's grep
// groups its matches by file instead (fileGroups).
func grepSummary(lines []string, room int) string {
	if counts, n := fileGroups(lines); n > 0 {
		return fitted(fmt.Sprintf("%d matching lines in %d files; most matches: %s\n",
			n, len(counts), top(counts, 8)), room)
	}
	counts := map[string]int{}
	for _, l := range lines {
		file := l
		if i := strings.IndexByte(l, ':'); i > 0 {
			file = l[:i]
		}
		counts[file]++
	}
	if len(counts) == len(lines) { // a list of files: nothing to count
		return fmt.Sprintf("%d files\n", len(lines))
	}
	return fitted(fmt.Sprintf("%d matching lines in %d files; most matches: %s\n",
		len(lines), len(counts), top(counts, 8)), room)
}

// fileGroups counts the matches of Gemini CLI's grep_search output per
// file: a "Found N matches…" line, then for each file "---", "File: PATH"
// and a line "L12: text" per match. n is 0 for output of another shape.
func fileGroups(lines []string) (counts map[string]int, n int) {
	counts = map[string]int{}
	file := ""
	for _, l := range lines {
		if f, ok := strings.CutPrefix(l, "File: "); ok {
			file = f
			continue
		}
		if file != "" && isLineMatch(l) {
			counts[file]++
			n++
		}
	}
	return counts, n
}

// isLineMatch: "L12: text".
func isLineMatch(l string) bool {
	digits, ok := strings.CutPrefix(l, "L")
	i := 0
	for ok && i < len(digits) && '0' <= digits[i] && digits[i] <= '9' {
		i++
	}
	return ok && i > 0 && i < len(digits) && digits[i] == ':'
}

// globSummary describes a file list by extension and by folder.
func globSummary(lines []string, room int) string {
	exts, dirs := map[string]int{}, map[string]int{}
	for _, l := range lines {
		ext := path.Ext(l)
		if ext == "" {
			ext = "(none)"
		}
		exts[ext]++
		dirs[topDir(l)]++
	}
	return fitted(fmt.Sprintf("%d files; by extension: %s; by folder: %s\n",
		len(lines), top(exts, 8), top(dirs, 8)), room)
}

// topDir is the first two levels of a path's folder, enough to tell
// src/components from test/fixtures.
func topDir(p string) string {
	dir := path.Dir(p)
	parts := strings.Split(strings.TrimPrefix(dir, "/"), "/")
	if len(parts) > 2 && strings.HasPrefix(dir, "/") {
		// Absolute paths: the deepest two folders say more than /home/user.
		return ".../" + strings.Join(parts[len(parts)-2:], "/")
	}
	if len(parts) > 2 {
		parts = parts[:2]
	}
	return strings.Join(parts, "/")
}

// top lists the n largest counts as "name (count)", largest first.
func top(counts map[string]int, n int) string {
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", cut(k, 80), counts[k]))
	}
	if len(names) > n {
		parts = append(parts, fmt.Sprintf("… %d more", len(names)-n))
	}
	return strings.Join(parts, ", ")
}

// fitted cuts a section to room bytes at a line boundary.
func fitted(s string, room int) string {
	if len(s) <= room {
		return s
	}
	if i := strings.LastIndexByte(s[:room], '\n'); i > 0 {
		return s[:i+1]
	}
	return ""
}
