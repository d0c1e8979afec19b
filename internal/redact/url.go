package redact

import "strings"

// Credentials in URLs.
const (
	SlackWebhook   = "slack-webhook"
	DiscordWebhook = "discord-webhook"
	TeamsWebhook   = "teams-webhook"
)

// webhookPath matches the secret path of a webhook URL from j (just past
// the host and the fixed part of the path): a first segment named in
// keep (slash-separated names) stays, the rest of the path, at least min
// bytes, is the secret.
func webhookPath(s string, j int, keep string, min int, kind string) (match, bool) {
	for _, k := range strings.Split(keep, "/") {
		if k != "" && strings.HasPrefix(s[j:], k+"/") {
			j += len(k) + 1
			break
		}
	}
	end := run(s, j, func(c byte) bool { return base64URL(c) || c == '/' || c == '+' || c == '@' || c == '=' }, 1024)
	if end-j < min {
		return match{}, false
	}
	return match{j, end, kind}, true
}

// queryValue matches the value of a secret query parameter, at the ? or
// & before its name: ?password=…, &token=…, &client_secret=…, &sig=… (an
// Azure SAS); a placeholder ($VAR, {x}, <x>, ***) is left alone.
func queryValue(s string, i int) (match, bool) {
	k := i + 1
	for k < len(s) && k-i <= 64 && (word(s[k]) || s[k] == '-' || s[k] == '.') {
		k++
	}
	if k == i+1 || k >= len(s) || s[k] != '=' || !secretParam(s[i+1:k]) {
		return match{}, false
	}
	end := k + 1
	for end < len(s) && strings.IndexByte("&#\"'<>\\` \t\r\n", s[end]) < 0 {
		end++
	}
	val := s[k+1 : end]
	if len(val) < 3 || strings.IndexByte("${<*%", val[0]) >= 0 || isMarker(val) || placeholder(val) ||
		strings.EqualFold(val, s[i+1:k]) || strings.Trim(val, val[:1]) == "" || reference(val) && !digitIn(val) {
		return match{}, false // a placeholder: $NEXT, {x}, REFRESH_TOKEN, BBBBBBBB, Sample.Subject.Token
	}
	if strings.IndexByte(val, '_') >= 0 && upperName(val) {
		return match{}, false // a name in capitals: an environment variable's
	}
	return match{k + 1, end, URLSecret}, true
}

// secretParam reports whether a query parameter's name says its value is
// a secret.
func secretParam(name string) bool {
	for _, suffix := range []string{"password", "passwd", "token", "secret", "api_key", "apikey", "secret_key", "access_key",
		"private_key", "signature"} {
		if len(name) >= len(suffix) && strings.EqualFold(name[len(name)-len(suffix):], suffix) {
			return true
		}
	}
	return strings.EqualFold(name, "sig") || strings.EqualFold(name, "auth")
}

// urlPassword matches the password of scheme://user:password@host, at an
// '@' of it. The password may hold '/' and '@' (written raw, as people
// do): the user part runs from "://" to the first ':', and the password
// to the last '@' that a host name follows. A URL whose part before an '@'
// is host:port/path is not one with a password.
func urlPassword(s string, i int) (match, bool) {
	// The scheme: the last "://" before i, on the same run of non-space
	// bytes.
	from := i
	for from > 0 && i-from < maxURLUserLen && strings.IndexByte(" \t\r\n\"'<>\\`", s[from-1]) < 0 {
		from--
	}
	sep := strings.LastIndex(s[from:i], "://")
	if sep < 1 || !alnum(s[from+sep-1]) {
		return match{}, false
	}
	k := from + sep + 3
	// The user: up to the first ':', with no '/' or '@' in it.
	colon := -1
	for j := k; j < i; j++ {
		if s[j] == ':' {
			colon = j
			break
		}
		if s[j] == '/' || s[j] == '@' {
			return match{}, false
		}
	}
	if colon < 0 {
		return match{}, false
	}
	// The delimiter: the last '@' before the end of this run of bytes
	// that a host follows.
	limit := colon + 1
	for limit < len(s) && limit-k < 2*maxURLUserLen && strings.IndexByte(" \t\r\n\"'<>\\`", s[limit]) < 0 {
		limit++
	}
	at := -1
	for j := i; j < limit; j++ {
		if s[j] == '@' && hostAt(s, j+1, limit) {
			at = j
		}
	}
	if at < 0 {
		return match{}, false
	}
	pw := s[colon+1 : at]
	if pw == "" || isMarker(pw) || strings.IndexByte("${<%", pw[0]) >= 0 || strings.Trim(pw, "*xX") == "" ||
		!plausible("", pw, passwordName, true) && len(pw) >= 3 {
		return match{}, false // a placeholder: user:***@, user:password@, user:${PASS}@
	}
	if slash := strings.IndexByte(pw, '/'); slash >= 0 && run(pw, 0, digit, slash) == slash {
		return match{}, false // host:port/path@…: a port, not a password
	}
	return match{colon + 1, at, URLPassword}, true
}

func digitIn(s string) bool { return strings.IndexAny(s, "0123456789") >= 0 }

// hostAt reports whether a host name (and perhaps a port) starts at j and
// ends the authority: at limit, or before '/', '?', '#', or a punctuation
// that ends a URL in text.
func hostAt(s string, j, limit int) bool {
	end := j
	for end < limit && (alnum(s[end]) || s[end] == '.' || s[end] == '-' || s[end] == '_') {
		end++
	}
	if end == j {
		return false
	}
	if end < limit && s[end] == ':' {
		end = run(s, end+1, digit, 6)
	}
	return end >= limit || strings.IndexByte("/?#,;)]}", s[end]) >= 0
}
