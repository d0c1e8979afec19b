//go:build !unix

package fsx

import "os"

func lockFile(*os.File) error { return nil } // best effort where flock is missing

func tryLockFile(*os.File) error { return nil } // best effort where flock is missing
