package purge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RecentWindow is how recently written a transcript must be to count as
// live when no running client claims it: clients that do not register
// their sessions still write at every turn.
const RecentWindow = 2 * time.Minute

// Liveness says whether the client may still be appending to a transcript.
type Liveness struct {
	Live   bool   `json:"live"`
	Reason string `json:"reason"`
}

// Live reports whether the session of t is still being written to. A
// running Claude Code (2.1.330) registers each session it has open in
// <claude dir>/sessions/<pid>.json, with its sessionId, pid and the
// process's start time; a session named there by a process that is still
// running (the same process: its start time matches) is live. So is a
// transcript written less than RecentWindow ago, whoever wrote it.
func Live(t *Transcript, claudeDir string, now time.Time) Liveness {
	if pid, ok := runningClient(claudeDir, t.SessionID); ok {
		return Liveness{Live: true, Reason: fmt.Sprintf("Claude Code (pid %d) has this session open", pid)}
	}
	if age := now.Sub(t.ModTime); age < RecentWindow {
		return Liveness{Live: true, Reason: fmt.Sprintf("the transcript was written %s ago", age.Round(time.Second))}
	}
	return Liveness{Reason: fmt.Sprintf("no running client has it open; last written %s", t.ModTime.Local().Format("2006-01-02 15:04:05"))}
}

// registration is the part of <claude dir>/sessions/<pid>.json read here.
type registration struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	ProcStart string `json:"procStart"`
}

// runningClient returns the pid of a running client that registered
// session.
func runningClient(claudeDir, session string) (int, bool) {
	files, _ := filepath.Glob(filepath.Join(claudeDir, "sessions", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r registration
		if json.Unmarshal(data, &r) != nil || r.SessionID != session || r.PID <= 0 {
			continue
		}
		if alive(r.PID) && sameStart(r.PID, r.ProcStart) {
			return r.PID, true
		}
	}
	return 0, false
}

// sameStart reports whether process pid started when the registration
// says, so that a pid reused by another program does not count. Where the
// start time cannot be read (no /proc), the process is taken as the same.
func sameStart(pid int, procStart string) bool {
	if procStart == "" {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// Field 22, the start time in clock ticks, counted after the command
	// name, which is in parentheses and may hold spaces.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return true
	}
	_, err = strconv.ParseUint(fields[19], 10, 64)
	return err != nil || fields[19] == procStart
}
