package config

import (
	"errors"
	"net/url"
	"strings"
)

// errDSNPassword is why a DSN holding a password is refused.
var errDSNPassword = errors.New("holds a password; ctxkeep never keeps one: put it in ~/.pgpass (or PGPASSWORD) and leave it out of the DSN")

// noPassword refuses a libpq connection string that holds a password: a
// URL's user:password@, its ?password=, or a password= pair.
func noPassword(dsn string) error {
	dsn = strings.TrimSpace(dsn)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return errors.New("not a valid postgres:// URL")
		}
		if _, set := u.User.Password(); set || u.Query().Has("password") {
			return errDSNPassword
		}
		return nil
	}
	// A key=value pair naming the password (libpq allows spaces around '=').
	low := strings.ToLower(dsn)
	for i := strings.Index(low, "password"); i >= 0; {
		rest := strings.TrimLeft(low[i+len("password"):], " \t")
		if (i == 0 || strings.ContainsRune(" \t\n", rune(low[i-1]))) && strings.HasPrefix(rest, "=") {
			return errDSNPassword
		}
		next := strings.Index(low[i+1:], "password")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return nil
}
