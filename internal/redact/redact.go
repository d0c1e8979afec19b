// Package redact replaces secrets in text with typed markers such as
// [redacted:github-token], before the text is indexed, shown to the model,
// written to a log or leaves the machine.
//
// It knows shapes that say "secret" with high confidence, and nothing
// else: a generic "long random string" rule would also eat the hashes,
// ids and base64 data the model needs. Three families (docs/SECURITY.md
// lists every format, with its marker):
//
//   - tokens recognised by a literal prefix and the right length and
//     alphabet: cloud keys (AWS, Google, Azure), forge and registry tokens
//     (GitHub, GitLab, npm, PyPI, RubyGems, Hugging Face), API keys
//     (Anthropic, OpenAI, Stripe, Slack, SendGrid, Twilio, Shopify,
//     DigitalOcean, Databricks…), Vault and age keys, JWTs, PEM private
//     key blocks, webhook URLs (Slack, Discord, Teams), Telegram bot
//     tokens (prefix.go, webhook.go);
//   - credentials in URLs: the password of scheme://user:password@host
//     (a password may hold '/' or '@'), and secret query parameters
//     (?token=, &password=, &sig=…) (url.go);
//   - values assigned to a name that says secret: DB_PASSWORD=…,
//     SECRET_KEY = '…', password: … in YAML, "auth": "…" in a Docker
//     config, AccountKey=… in a connection string, mysql -pPASS, an
//     Authorization header's Bearer or Basic credentials — only where the
//     value is a literal, not code (assign.go).
//
// Text without secrets is returned as it is, without allocating: a
// vectorised search (strings.IndexByte) finds the few bytes a secret's
// shape hangs on (anchors), and only the bytes around each are looked at.
// No table is built and no regular expression compiled: the package costs
// nothing at start-up. A megabyte takes 1 to 4 ms (prose 1, Go code 2, a
// build log or a JSON transcript 4: dense with '=', ':' and '.', which
// assignments and dotted prefixes hang on; minimum of 8 runs on a loaded
// 2-core machine, BenchmarkString), three to six times what the first
// sixteen formats cost. A replacement keeps the line count (a PEM block's
// marker is followed by as many newlines as the block held), so line
// numbers into the original still hold in the redacted text.
package redact

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Marker is what a secret of kind is replaced with.
func Marker(kind string) string { return "[redacted:" + kind + "]" }

// Kinds of secrets, as named in markers.
const (
	AWSAccessKey  = "aws-access-key"
	AWSSecretKey  = "aws-secret-key"
	GitHubToken   = "github-token"
	GitLabToken   = "gitlab-token"
	SlackToken    = "slack-token"
	AnthropicKey  = "anthropic-key"
	OpenAIKey     = "openai-key"
	GoogleAPIKey  = "google-api-key"
	StripeKey     = "stripe-key"
	JWT           = "jwt"
	PrivateKey    = "private-key"
	URLSecret     = "url-secret"   // the value of ?token=, &password=, &sig=…
	URLPassword   = "url-password" // the password of scheme://user:password@host
	maxPEM        = 64 << 10       // how far a PEM block's END line is looked for
	maxURLUserLen = 256            // how far back from '@' the user:password part is looked for
)

// String returns s with every secret replaced by its marker, or s itself
// when it holds none.
func String(s string) string {
	found := find(s)
	if found == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range found {
		b.WriteString(s[last:m.start])
		b.WriteString(Marker(m.kind))
		for range strings.Count(s[m.start:m.end], "\n") {
			b.WriteByte('\n')
		}
		last = m.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Bytes is String for a byte slice: b itself when it holds no secret.
func Bytes(b []byte) []byte {
	s := unsafe.String(unsafe.SliceData(b), len(b)) // read only, not kept
	if find(s) == nil {
		return b
	}
	return []byte(String(s))
}

// Field is s as a log or a journal may hold it: redacted, and cut to max
// bytes (on a character's boundary) with its size noted, so that a
// hostile field of megabytes is not copied whole. Only the first max+4 kB
// are looked at: a secret that starts in what is kept is whole in there
// (a PEM block cut short is still one).
func Field(s string, max int) string {
	if len(s) <= max {
		return String(s)
	}
	size := len(s)
	s = String(s[:cutAt(s, max+4096)])
	return s[:cutAt(s, max)] + "… [" + strconv.Itoa(size) + " bytes, cut]"
}

// cutAt is the largest character boundary of s at or before n.
func cutAt(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Contains reports whether s holds a secret String would replace.
func Contains(s string) bool { return find(s) != nil }

// match is one secret: s[start:end] is replaced.
type match struct {
	start, end int
	kind       string
}

// anchors are the bytes a secret is looked for around, each found with
// strings.IndexByte (vector instructions: many times faster than looking
// at every byte in Go); at dispatches on them. Prefixes without one of
// these bytes are found as literals (see literals).
const anchors = "_-?&@JzI.=:BK~"

// find returns the secrets of s in order, without overlaps; nil (and no
// allocation) when there are none.
func find(s string) []match {
	var found []match
	for k := range len(anchors) {
		c := anchors[k]
		for i := strings.IndexByte(s, c); i >= 0; {
			next := i + 1
			if m, ok := at(s, i); ok {
				found = append(found, m)
				next = max(next, m.end)
			}
			j := strings.IndexByte(s[next:], c)
			if j < 0 {
				break
			}
			i = next + j
		}
	}
	for _, lit := range literals {
		for i := strings.Index(s, lit); i >= 0; {
			next := i + 1
			if m, ok := atLiteral(s, i, lit); ok {
				found = append(found, m)
				next = max(next, m.end)
			}
			j := strings.Index(s[next:], lit)
			if j < 0 {
				break
			}
			i = next + j
		}
	}
	if len(found) > 1 {
		found = merge(found)
	}
	return found
}

// merge sorts matches and joins those that overlap (a URL's password can
// be a token; a PEM block holds many things that look like secrets).
func merge(found []match) []match {
	slices.SortFunc(found, func(a, b match) int { return cmp.Or(a.start-b.start, b.end-a.end) })
	out := found[:1]
	for _, m := range found[1:] {
		last := &out[len(out)-1]
		if m.start >= last.end {
			out = append(out, m)
			continue
		}
		if m.end-m.start > last.end-last.start || m.end-m.start == last.end-last.start && generic(last.kind) {
			last.kind = m.kind // the longer, or of the same span, the more specific
		}
		last.end = max(last.end, m.end)
	}
	return out
}

// generic reports whether kind says where a secret was found rather than
// what it is: a token of a known shape found there too names it better.
func generic(kind string) bool {
	switch kind {
	case URLSecret, URLPassword, Password, Secret, BearerToken, BasicAuth:
		return true
	}
	return false
}

// at checks the rules that hang on the anchor byte s[i].
func at(s string, i int) (match, bool) {
	switch s[i] {
	case '_':
		return atUnderscore(s, i)
	case '-':
		return atHyphen(s, i)
	case '.':
		return atDot(s, i)
	case '?', '&':
		return queryValue(s, i)
	case '@':
		return urlPassword(s, i)
	case '=', ':':
		return assignment(s, i)
	case 'B':
		return authHeader(s, i)
	case 'J':
		return jwt(s, i)
	case 'z':
		return googleKey(s, i)
	case 'I':
		return awsAccessKey(s, i)
	case 'K':
		return twilioKey(s, i)
	case '~':
		return azureClientSecret(s, i)
	}
	return match{}, false
}

// token matches a secret that starts at start (the prefix, already
// checked, runs to body) with min to max bytes of class after it. The
// secret must stand alone: no letter or digit right before it, none of
// its class right after.
func token(s string, start, body int, class func(byte) bool, min, max int, kind string) (match, bool) {
	if !freeBefore(s, start) {
		return match{}, false
	}
	end := run(s, body, class, max+1)
	if n := end - body; n < min || n > max {
		return match{}, false
	}
	return match{start, end, kind}, true
}

// awsSecretKey matches the 40-character value after
// aws_secret_access_key (key through name), as written in a credentials
// file, an environment or JSON: optional quote, spaces, '=' or ':'.
func awsSecretKey(s string, key, name int) (match, bool) {
	if !freeBefore(s, key) {
		return match{}, false
	}
	j := skip(s, name, `"' `+"\t")
	if j >= len(s) || (s[j] != '=' && s[j] != ':') {
		return match{}, false
	}
	j = skip(s, j+1, `"' `+"\t")
	end := run(s, j, awsSecretChar, 41)
	if end-j != 40 {
		return match{}, false
	}
	return match{j, end, AWSSecretKey}, true
}

// awsAccessKey matches AKIA… or ASIA… and 16 upper-case letters or
// digits, at the 'I'.
func awsAccessKey(s string, i int) (match, bool) {
	if i < 2 || s[i-2] != 'A' || (s[i-1] != 'K' && s[i-1] != 'S') || i+1 >= len(s) || s[i+1] != 'A' {
		return match{}, false
	}
	m, ok := token(s, i-2, i+2, upperDigit, 16, 16, AWSAccessKey)
	return m, ok && (m.end == len(s) || !alnum(s[m.end]))
}

// googleKey matches AIza and 35 characters, at the 'z'.
func googleKey(s string, i int) (match, bool) {
	if i < 2 || s[i-2:i] != "AI" || i+1 >= len(s) || s[i+1] != 'a' {
		return match{}, false
	}
	return token(s, i-2, i+2, base64URL, 35, 35, GoogleAPIKey)
}

// jwt matches header.payload.signature, header and payload being
// base64url JSON objects ("eyJ"), at the 'J' of the header.
func jwt(s string, i int) (match, bool) {
	start := i - 2
	if start < 0 || s[start:i] != "ey" || !freeBefore(s, start) {
		return match{}, false
	}
	end := start
	for part := range 3 {
		if part > 0 {
			if end >= len(s) || s[end] != '.' || (part == 1 && !strings.HasPrefix(s[end+1:], "eyJ")) {
				return match{}, false
			}
			end++
		}
		next := run(s, end, base64URL, 1<<16)
		if next-end < 10 && part < 2 || next == end {
			return match{}, false
		}
		end = next
	}
	return match{start, end, JWT}, true
}

// pemBlock matches a PEM private key block from its BEGIN line (at i) to
// its END line; without an END line (output cut short), the lines that
// follow as long as they look like the block's (base64, or headers).
func pemBlock(s string, i int) (match, bool) {
	line, _, _ := strings.Cut(s[i+len("-----BEGIN "):min(len(s), i+200)], "\n")
	label, _, ok := strings.Cut(line, "-----")
	if !ok || !strings.Contains(label, "PRIVATE KEY") {
		return match{}, false
	}
	window := s[i:min(len(s), i+maxPEM)]
	if e := strings.Index(window, "-----END "); e >= 0 {
		if f := strings.Index(window[e+len("-----END "):], "-----"); f >= 0 {
			return match{i, i + e + len("-----END ") + f + len("-----"), PrivateKey}, true
		}
	}
	end := i + strings.IndexByte(window, '\n') // the BEGIN line
	if end < i {
		return match{i, len(s), PrivateKey}, true
	}
	for end+1 < len(s) {
		next, _, _ := strings.Cut(s[end+1:], "\n")
		body := strings.TrimRight(next, "\r")
		if body == "" || !(run(body, 0, pemChar, len(body)) == len(body) || strings.Contains(body, ": ")) {
			break
		}
		end += 1 + len(next)
	}
	return match{i, end, PrivateKey}, true
}

// isMarker reports whether s is a marker: a secret already redacted.
func isMarker(s string) bool { return strings.HasPrefix(s, "[redacted:") && strings.HasSuffix(s, "]") }

// freeBefore reports whether a secret may start at start: not in the
// middle of a word.
func freeBefore(s string, start int) bool { return start == 0 || !alnum(s[start-1]) }

// run returns where the bytes of class starting at j end, looking at most
// max bytes.
func run(s string, j int, class func(byte) bool, max int) int {
	end := j
	for end < len(s) && end-j < max && class(s[end]) {
		end++
	}
	return end
}

func skip(s string, j int, set string) int {
	for j < len(s) && strings.IndexByte(set, s[j]) >= 0 {
		j++
	}
	return j
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
func word(c byte) bool          { return alnum(c) || c == '_' }
func base64URL(c byte) bool     { return word(c) || c == '-' }
func slackChar(c byte) bool     { return alnum(c) || c == '-' }
func upperDigit(c byte) bool    { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
func awsSecretChar(c byte) bool { return alnum(c) || c == '/' || c == '+' }
func pemChar(c byte) bool       { return alnum(c) || c == '/' || c == '+' || c == '=' }
