package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxkeep/ctxkeep"
)

// Error codes of the --json error object (docs/CLI.md).
const (
	codeUsage       = "usage"       // bad command line (exit 2)
	codeNotFound    = "not_found"   // no such entry, chunk, session or file
	codeAmbiguous   = "ambiguous"   // a prefix matches more than one
	codeCorrupt     = "corrupt"     // stored bytes do not match their hash
	codeEmptyQuery  = "empty_query" // a search with no word to search for
	codeRefused     = "refused"     // the command will not do it as asked (a live session, a file that is not a transcript…)
	codeInterrupted = "interrupted" // Ctrl-C (exit 130)
	codeError       = "error"       // anything else
)

// report prints an error the way every command does and picks the exit
// code: on stderr as "ctxkeep: error: …" and "ctxkeep: hint: …", or with
// --json as an error object on stdout.
func (a *app) report(err error) int {
	if err == nil {
		return exitOK
	}
	var silent silentError
	if errors.As(err, &silent) {
		return silent.code
	}
	code, exit := codeError, exitError
	var h *hintedError
	errors.As(err, &h)
	switch {
	case errors.Is(err, context.Canceled):
		code, exit = codeInterrupted, exitAborted
	case errors.Is(err, ctxkeep.ErrEmptyQuery):
		code, exit = codeEmptyQuery, exitUsage
	case h != nil && h.usage:
		code, exit = codeUsage, exitUsage
	case h != nil && h.code != "":
		code = h.code
	case errors.Is(err, ctxkeep.ErrNotFound):
		code = codeNotFound
	case errors.Is(err, ctxkeep.ErrAmbiguous):
		code = codeAmbiguous
	case errors.Is(err, ctxkeep.ErrCorrupt):
		code = codeCorrupt
	}
	msg, hintText := strings.TrimSpace(err.Error()), ""
	if code == codeInterrupted {
		msg = "interrupted"
	}
	if h != nil {
		hintText = h.hint
	}
	if a.jsonOut {
		a.printJSON(errorDoc{Error: errorObject{Code: code, Message: msg, Hint: hintText}})
		return exit
	}
	fmt.Fprintf(a.Stderr, "ctxkeep: error: %s\n", msg)
	if hintText != "" {
		fmt.Fprintf(a.Stderr, "ctxkeep: hint: %s\n", hintText)
	}
	return exit
}

// errorDoc is what a command run with --json prints on stdout when it
// fails: {"error": {"code": "not_found", "message": "…", "hint": "…"}}.
type errorDoc struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// hintedError carries a hint for the user, whether it is a usage error,
// and an error code for the JSON error object.
type hintedError struct {
	err   error
	hint  string
	usage bool
	code  string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

func (e *hintedError) withHint(format string, args ...any) *hintedError {
	e.hint = fmt.Sprintf(format, args...)
	return e
}

func usageErrorf(format string, args ...any) *hintedError {
	return &hintedError{err: fmt.Errorf(format, args...), usage: true}
}

func hint(err error, format string, args ...any) error {
	return (&hintedError{err: err}).withHint(format, args...)
}

// refused is an error for a request the command will not carry out as
// asked (code "refused").
func refused(err error, format string, args ...any) error {
	return &hintedError{err: err, hint: fmt.Sprintf(format, args...), code: codeRefused}
}

// silentError ends a command with a code after it has already said why
// (doctor and check report their findings themselves).
type silentError struct{ code int }

func (e silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
