package purge

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// otherWriters reports whether a process holds f's file open for writing
// through a descriptor other than f itself: a write of its may still land
// in the file. It looks through /proc; processes it may not look into
// (other users') are skipped: the client runs as the user who purges.
func otherWriters(f *os.File) bool {
	info, err := f.Stat()
	if err != nil {
		return false
	}
	self := fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), f.Fd())
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := "/proc/" + p.Name()
		fds, _ := os.ReadDir(dir + "/fd")
		for _, fd := range fds {
			link := dir + "/fd/" + fd.Name()
			if link == self {
				continue
			}
			if st, err := os.Stat(link); err == nil && os.SameFile(st, info) && writable(dir+"/fdinfo/"+fd.Name()) {
				return true
			}
		}
	}
	return false
}

// writable reads a descriptor's access mode from its fdinfo ("flags:" in
// octal; O_WRONLY or O_RDWR in the low two bits).
func writable(fdinfo string) bool {
	data, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			flags, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 64)
			return err == nil && flags&3 != 0
		}
	}
	return false
}
