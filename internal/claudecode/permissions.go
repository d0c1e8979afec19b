package claudecode

import (
	"encoding/json"
	"strings"
)

// Permissions are the Bash rules of one or more settings files
// ("permissions": {"allow": […], "ask": […], "deny": […]}).
type Permissions struct {
	Allow, Ask, Deny []string
}

// ReadPermissions collects the permission rules of settings files' contents;
// files that do not parse contribute nothing.
func ReadPermissions(files ...[]byte) Permissions {
	var p Permissions
	for _, data := range files {
		var s struct {
			Permissions struct {
				Allow []string `json:"allow"`
				Ask   []string `json:"ask"`
				Deny  []string `json:"deny"`
			} `json:"permissions"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		p.Allow = append(p.Allow, s.Permissions.Allow...)
		p.Ask = append(p.Ask, s.Permissions.Ask...)
		p.Deny = append(p.Deny, s.Permissions.Deny...)
	}
	return p
}

// AllowsBash reports whether the client would run a Bash command without
// asking, given the session's permission mode and the rules. It answers
// only what it can answer for certain and says false otherwise: the
// wrapper grants its rewritten command exactly when this is true, and must
// never grant what the original command would not have been granted
// (claude-code-hooks.md §4.2).
//
// Certain means: the mode bypasses permissions; or the command is one
// simple command (no ;, &&, |, redirection or substitution, which the
// client checks part by part) that an allow rule matches and no ask or
// deny rule does.
func (p Permissions) AllowsBash(mode, command string) bool {
	switch mode {
	case "bypassPermissions":
		return true
	case "plan":
		return false
	}
	command = strings.TrimSpace(command)
	if command == "" || strings.ContainsAny(command, ";&|<>`$\n(){}") {
		return false
	}
	if matchAny(p.Deny, command) || matchAny(p.Ask, command) {
		return false
	}
	return matchAny(p.Allow, command)
}

func matchAny(rules []string, command string) bool {
	for _, r := range rules {
		if bashRuleMatches(r, command) {
			return true
		}
	}
	return false
}

// bashRuleMatches applies one rule: "Bash" (every command), "Bash(npm
// test:*)" (a prefix, at a word boundary), "Bash(npm run *)" (a wildcard
// pattern) or "Bash(npm test)" (exactly).
func bashRuleMatches(rule, command string) bool {
	rule = strings.TrimSpace(rule)
	if rule == "Bash" || rule == "Bash(*)" {
		return true
	}
	spec, ok := strings.CutPrefix(rule, "Bash(")
	if !ok || !strings.HasSuffix(spec, ")") {
		return false
	}
	spec = strings.TrimSuffix(spec, ")")
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return command == prefix || strings.HasPrefix(command, prefix+" ")
	}
	if strings.Contains(spec, "*") {
		return wildcard(spec, command)
	}
	return command == spec
}

// wildcard matches s against a pattern where * stands for any run of
// characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, part := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, part)
		}
		j := strings.Index(s, part)
		if j < 0 {
			return false
		}
		s = s[j+len(part):]
	}
	return s == ""
}
