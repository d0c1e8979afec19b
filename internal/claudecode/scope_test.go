package claudecode

import (
	"path/filepath"
	"testing"
)

func TestSettingsPath(t *testing.T) {
	tests := []struct {
		scope     Scope
		configDir string
		want      string
	}{
		{User, "", "/home/me/.claude/settings.json"},
		{User, "/cfg", "/cfg/settings.json"},
		{Project, "/cfg", "/src/app/.claude/settings.json"},
		{Local, "", "/src/app/.claude/settings.local.json"},
	}
	for _, tt := range tests {
		got := SettingsPath(tt.scope, "/home/me", "/src/app", tt.configDir)
		if got != filepath.FromSlash(tt.want) {
			t.Errorf("SettingsPath(%v, config dir %q) = %q, want %q", tt.scope, tt.configDir, got, tt.want)
		}
	}
}

func TestScopeString(t *testing.T) {
	if got := Scope(9).String(); got != "Scope(9)" {
		t.Errorf("Scope(9).String() = %q", got)
	}
}
