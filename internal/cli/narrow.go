package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/ctxkeep/ctxkeep/internal/excerpt"
)

// narrowOptions are the flags that pick part of a long text, for show and
// recall (internal/excerpt does the picking and the checks): lines A:B,
// the lines matching a regular expression (with context), or the first
// and last lines.
type narrowOptions struct {
	lines   string
	grep    string
	context countFlag
	head    countFlag
	tail    countFlag
}

func (o *narrowOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.lines, "lines", "", "print lines `A:B` (1-based, inclusive; A: or :B for open ends)")
	fs.StringVar(&o.grep, "grep", "", "print the lines matching the regular expression `RE`, numbered (N:line, like grep -n)")
	fs.Var(&o.context, "C", "with --grep, also print `N` lines of context around each match (N-line)")
	fs.Var(&o.head, "head", "print the first `N` lines (with --tail: the last lines of those)")
	fs.Var(&o.tail, "tail", "print the last `N` lines")
}

// excerpt is the part asked for, named by the flags.
func (o *narrowOptions) excerpt() excerpt.Options {
	count := func(c countFlag) excerpt.Count { return excerpt.Count{N: c.n, Set: c.set} }
	return excerpt.Options{Lines: o.lines, Grep: o.grep, Context: count(o.context), Head: count(o.head), Tail: count(o.tail),
		Names: excerpt.CLINames}
}

// set reports whether any narrowing was asked for.
func (o *narrowOptions) set() bool { return o.excerpt().Set() }

// ways lists the narrowing flags given, one name per way.
func (o *narrowOptions) ways() []string { return o.excerpt().Ways() }

// validate refuses what would print something else than what was meant.
func (o *narrowOptions) validate() error { return usage(o.excerpt().Validate()) }

// print writes the part of data asked for (all of it when nothing was).
func (o *narrowOptions) print(w io.Writer, data []byte) error {
	return usage(o.excerpt().Write(w, data))
}

// usage makes an excerpt's bad request a usage error (exit status 2).
func usage(err error) error {
	if errors.Is(err, excerpt.ErrBadRequest) {
		return usageErrorf("%s", err)
	}
	return err
}

// countFlag is a whole-number flag that knows whether it was given, so
// that --head 0 is refused rather than read as "not given".
type countFlag struct {
	n   int
	set bool
}

func (c *countFlag) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.Itoa(c.n)
}

func (c *countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	c.n, c.set = n, true
	return nil
}

func (c *countFlag) Get() any { return c.n }
