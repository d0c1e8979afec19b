//go:build !unix

package purge

// alive cannot tell on this system: every registered client counts as
// running, the safe answer.
func alive(int) bool { return true }
