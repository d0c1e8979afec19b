//go:build unix

package hook

import "syscall"

// PrivateFiles makes every file and folder this process creates private
// to the user, including those created by libraries that pass 0666 or
// 0777 (SQLite's -wal and -shm files).
func PrivateFiles() { syscall.Umask(0o077) }
