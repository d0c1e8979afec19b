package redact

import (
	"encoding/base64"
	"strings"
)

// Secrets known by the name they are given rather than by their shape.
const (
	Password      = "password"           // DB_PASSWORD=…, password: …, mysql -p…
	Secret        = "secret"             // SECRET_KEY = '…', "token": "…"
	AzureKey      = "azure-key"          // AccountKey=…, SharedAccessKey=… in a connection string
	BearerToken   = "bearer-token"       // Authorization: Bearer …
	BasicAuth     = "basic-auth"         // Authorization: Basic …, a Docker config's "auth"
	TelegramToken = "telegram-bot-token" // 123456789:AA…
)

// nameClass is what a name says of the value assigned to it.
type nameClass int

const (
	notSecret    nameClass = iota
	passwordName           // password, passwd, passphrase, pass, pwd
	secretName             // secret, token, api_key, secret_key, private_key…
	keyName                // AccountKey, SharedAccessKey, client-key-data: a value that is a key wherever it is
	authName               // auth: base64 of user:password (a Docker config)
)

// assignment matches the literal value assigned to a name that says it
// is secret, at the '=' or ':' between them: DB_PASSWORD=…,
// SECRET_KEY = '…', "password": "…", password: … (YAML, at the start of a
// line), AccountKey=…;, --password=…. A quoted value is a literal
// wherever it is; an unquoted one only where it cannot be code: an
// environment variable's (upper-case name), a flag's, a configuration
// line's (the name opens the line and the value ends it), a connection
// string's, or, after a space, one that looks like a credential (a
// password with a digit, a token of 16 or more mixing letters and
// digits). A placeholder ($VAR, {x}, <x>, ***), a type (string) or a
// reference (os.environ, self.token) is left alone. A Telegram bot token
// (digits:AA…) is found at its ':' too.
func assignment(s string, i int) (match, bool) {
	op, v, arrow := i, i+1, false
	switch s[i] {
	case '=':
		if i+1 < len(s) && s[i+1] == '=' {
			return match{}, false // ==
		}
		if i > 0 && s[i-1] == ':' {
			op = i - 1 // :=
		} else if i > 0 && strings.IndexByte("=!<>+-*/%|&^~", s[i-1]) >= 0 {
			return match{}, false // comparisons, compound assignments
		}
		if i+1 < len(s) && s[i+1] == '>' {
			v, arrow = i+2, true // 'password' => '…'
		}
	case ':':
		if i+1 < len(s) && strings.IndexByte("=:/", s[i+1]) >= 0 || i > 0 && s[i-1] == ':' {
			return match{}, false // := (at the '='), ::, ://
		}
		if m, ok := telegram(s, i); ok {
			return m, true
		}
	}
	// The name: before the operator, perhaps quoted ("password", \"password\"
	// in JSON held in a string), perhaps spaced from it.
	e := op
	for e > 0 && op-e < 4 && (s[e-1] == ' ' || s[e-1] == '\t') {
		e--
	}
	var quote byte
	escaped := false
	if e > 0 && (s[e-1] == '"' || s[e-1] == '\'') {
		quote, e = s[e-1], e-1
		if e > 0 && s[e-1] == '\\' {
			escaped, e = true, e-1
		}
	}
	if e == 0 || strings.IndexByte("dDeEtTnNyYsSaAhH", s[e-1]) < 0 {
		return match{}, false // the last letter of no word classify knows: most '=' and ':' end here
	}
	b := e
	for b > 0 && e-b < 64 && nameChar(s[b-1]) {
		b--
	}
	if b == e {
		return match{}, false
	}
	if quote != 0 {
		open := b - 1
		if escaped {
			open--
		}
		if open < 0 || s[b-1] != quote || escaped && s[open] != '\\' {
			return match{}, false
		}
	}
	name := s[b:e]
	class := classify(name)
	if class == notSecret {
		return match{}, false
	}
	// The value.
	for v < len(s) && v-op < 8 && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v >= len(s) {
		return match{}, false
	}
	if q := s[v]; q == '"' || q == '\'' || q == '\\' && v+1 < len(s) && (s[v+1] == '"' || s[v+1] == '\'') {
		start, close := v+1, string(q)
		if q == '\\' {
			start, close = v+2, s[v:v+2]
		}
		end := quotedEnd(s, start, close)
		if end < 0 || !plausible(name, s[start:end], class, true) || s[start] == ' ' || concatenated(s, end+len(close)) {
			return match{}, false
		}
		return match{start, end, class.kind()}, true
	}
	if quote != 0 || arrow {
		return match{}, false // "name": 42, a dict's variable: not a literal
	}
	// Unquoted: where the value ends, and whether it is one, depends on
	// where it is.
	env := s[i] == '=' && (upperName(name) || name[0] == '-') // DB_PASSWORD=…, --password=…
	conn := class == keyName || b > 0 && s[b-1] == ';'        // Server=…;Password=…;
	line := lineStart(s, b)                                   // password: … in YAML, an .ini, a .properties
	stops := " \t\r\n\"'`\\"                                  // constants: a concatenation would allocate
	switch {
	case conn:
		stops = " \t\r\n\"'`\\;"
	case env:
		stops = " \t\r\n\"'`\\;|)"
	case !line:
		stops = " \t\r\n\"'`\\;,()<>[]{}"
	}
	end := v
	for end < len(s) && end-v < 4096 && strings.IndexByte(stops, s[end]) < 0 {
		end++
	}
	val := s[v:end]
	if !plausible(name, val, class, false) || nextKey(val) {
		return match{}, false
	}
	switch {
	case conn, env:
	case line:
		if !lineEnd(s, end) || strings.ContainsAny(val, "()[]{},") || !credential(val, class) || camel(name) && identifier(val) {
			return match{}, false // code: password = get(…), Password: cfg.Password,
		}
	case (b == 0 || strings.IndexByte(" \t\"'", s[b-1]) >= 0) && (end == len(s) || strings.IndexByte(" \t\r\n\"'\\;", s[end]) >= 0) &&
		credential(val, class): // host=db password=s3cret (a libpq connection string)
	default:
		return match{}, false
	}
	kind := class.kind()
	if class == keyName && endsWith(name, "client-key-data") {
		kind = PrivateKey
	}
	return match{v, end, kind}, true
}

func (c nameClass) kind() string {
	switch c {
	case passwordName:
		return Password
	case keyName:
		return AzureKey
	case authName:
		return BasicAuth
	}
	return Secret
}

// classify says what a name (an identifier, a key, a flag) tells of its
// value: the word it ends with, case aside ("DB_PASSWORD", "dbPassword",
// "PGPASSWORD", "--password", "client_secret", "apiKey"). The short words
// pass and pwd count only as the last part of a longer environment
// variable's name (DB_PASS), so that "bypass", f.pass or the "PASS:" of a
// test log are nothing; auth only as the whole name.
func classify(name string) nameClass {
	n := strings.TrimLeft(name, "-")
	if len(n) < 4 {
		return notSecret
	}
	switch n[len(n)-1] | 0x20 { // the last letter, in lower case
	case 'd':
		switch {
		case endsWith(n, "pwd"):
			if len(n) > 3 && boundary(n, len(n)-3) && upperName(n) && n != "OLDPWD" {
				return passwordName
			}
		case endsWith(n, "password"), endsWith(n, "passwd"):
			return passwordName
		}
	case 'e':
		if endsWith(n, "passphrase") {
			return passwordName
		}
	case 's':
		if len(n) > 4 && endsWith(n, "pass") && boundary(n, len(n)-4) && upperName(n) {
			return passwordName
		}
	case 'h':
		if strings.EqualFold(n, "auth") {
			return authName
		}
	case 'a':
		if endsWith(n, "client-key-data") {
			return keyName
		}
	case 't':
		if endsWith(n, "secret") {
			return secretName
		}
	case 'n':
		if endsWith(n, "token") {
			return secretName
		}
	case 'y':
		if strings.EqualFold(n, "AccountKey") || strings.EqualFold(n, "SharedAccessKey") {
			return keyName
		}
		for _, w := range [...]string{"apikey", "api_key", "api-key", "secretkey", "secret_key", "secret-key",
			"accesskey", "access_key", "privatekey", "private_key"} {
			if endsWith(n, w) {
				return secretName
			}
		}
	}
	return notSecret
}

// boundary reports whether a part of name starts at j: after a separator,
// or as a capital after a small letter (camelCase).
func boundary(name string, j int) bool {
	p, c := name[j-1], name[j]
	return p == '_' || p == '-' || p == '.' || p >= 'a' && p <= 'z' && c >= 'A' && c <= 'Z'
}

func endsWith(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// plausible reports whether val, assigned to name of class, may be a
// secret rather than a placeholder, a type, a reference or an empty
// default.
func plausible(name, val string, class nameClass, quoted bool) bool {
	least := 3
	switch class {
	case secretName:
		least = 8
	case keyName:
		least = 16
	case authName:
		return basicCredentials(val)
	}
	if len(val) < least || len(val) > 4096 || isMarker(val) || strings.IndexByte("${<%*", val[0]) >= 0 ||
		!quoted && strings.IndexByte("&!@#", val[0]) >= 0 {
		return false
	}
	if strings.Trim(val, "*xX.•#-_ ") == "" || strings.EqualFold(val, strings.TrimLeft(name, "-")) {
		return false
	}
	for _, w := range [...]string{"null", "nil", "none", "true", "false", "undefined", "required", "optional", "string",
		"str", "number", "int", "bool", "boolean", "any", "object", "bytes", "text", "empty", "changeme", "password",
		"secret", "token", "redacted", "hidden", "masked", "unset", "env", "default", "[]byte", "secretstr", "pass",
		"passwd", "pwd", "user", "username"} {
		if strings.EqualFold(strings.TrimRight(val, ";,"), w) {
			return false
		}
	}
	if placeholder(val) || class == secretName && !randomish(val) {
		return false
	}
	return quoted || !reference(val)
}

// concatenated reports whether a quoted literal that ends before j is
// joined to more (code: "md5" + hex, "%s" % x, "a" . $b).
func concatenated(s string, j int) bool {
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j < len(s) && (s[j] == '+' || s[j] == '%' || s[j] == '.' && j+1 < len(s) && s[j+1] == ' ')
}

// camel reports whether a name is written in camelCase (a variable, a
// field: code rather than a configuration key).
func camel(name string) bool {
	for i := 1; i < len(name); i++ {
		if name[i-1] >= 'a' && name[i-1] <= 'z' && name[i] >= 'A' && name[i] <= 'Z' {
			return true
		}
	}
	return false
}

// identifier reports whether val could name a variable.
func identifier(val string) bool {
	return val != "" && !digit(val[0]) && run(val, 0, word, len(val)) == len(val)
}

// nextKey reports whether an unquoted value is the next name of a list
// of key=value pairs, the value itself left empty ("password= port=5432").
func nextKey(val string) bool {
	k, _, ok := strings.Cut(val, "=")
	return ok && k != "" && run(k, 0, func(c byte) bool { return c >= 'a' && c <= 'z' || c == '_' }, len(k)) == len(k)
}

// placeholder reports whether val says it stands for a secret to fill in
// (your-key-here, <example>, xxxx, changeme).
func placeholder(val string) bool {
	for _, p := range [...]string{"your-", "your_", "yourkey", "yourpass", "yoursecret", "yourtoken", "-here", "_here",
		"example", "placeholder", "xxxx", "change-me", "change_me", "replace-me", "replace_me", "dummy"} {
		if len(val) >= len(p) && containsFold(val, p) {
			return true
		}
	}
	return false
}

// randomish reports whether a token's value looks generated: a digit in
// it, or, over 20 characters, its case changing as often as chance
// makes it (words joined, X-Fake-Connection-Token, change it seldom).
func randomish(val string) bool {
	changes, letters := 0, 0
	prev := byte(0)
	for i := range len(val) {
		c := val[i]
		kind := byte(0)
		switch {
		case digit(c):
			return true
		case c >= 'A' && c <= 'Z':
			kind = 'A'
		case c >= 'a' && c <= 'z':
			kind = 'a'
		}
		if kind != 0 {
			letters++
			if prev != 0 && kind != prev {
				changes++
			}
		}
		prev = kind
	}
	return letters >= 20 && changes*3 >= letters
}

// containsFold is strings.Contains ignoring ASCII case, without
// allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// reference reports whether an unquoted value reads as code: a dotted
// name (os.environ, self.token, settings.SECRET_KEY).
func reference(val string) bool {
	parts := 0
	for part := range strings.SplitSeq(val, ".") {
		if part == "" || digit(part[0]) || run(part, 0, word, len(part)) != len(part) {
			return false
		}
		parts++
	}
	return parts >= 2
}

// credential reports whether an unquoted value seen in running text looks
// like a secret: a password with a digit or a sign beside letters, a
// token of 16 or more mixing letters and digits.
func credential(val string, class nameClass) bool {
	switch class {
	case passwordName:
		return hasDigitAndLetter(val) || run(val, 0, word, len(val)) != len(val)
	case secretName:
		return len(val) >= 16 && hasDigitAndLetter(val)
	}
	return true
}

// basicCredentials reports whether val is base64 of user:password.
func basicCredentials(val string) bool {
	if len(val) < 8 || len(val) > 1024 {
		return false
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(val, "=") && len(val)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	var buf [768]byte
	n, err := enc.Decode(buf[:], []byte(val))
	if err != nil {
		return false
	}
	dec := buf[:n]
	colon := strings.IndexByte(string(dec), ':')
	if colon < 1 || colon == len(dec)-1 {
		return false
	}
	for _, c := range dec {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// quotedEnd returns where the quoted text from start ends (at the first
// close not escaped by a backslash, on the same line), or -1.
func quotedEnd(s string, start int, close string) int {
	for j := start; j < len(s) && j-start <= 4096; j++ {
		switch {
		case s[j] == '\n' || s[j] == '\r':
			return -1
		case strings.HasPrefix(s[j:], close):
			return j
		case s[j] == '\\' && len(close) == 1:
			j++
		case s[j] == '\\' && j+1 < len(s) && s[j+1] == 'n': // a newline, escaped in JSON
			return -1
		}
	}
	return -1
}

// lineStart reports whether only indentation, a list's "- " or an
// "export " comes before b on its line (a newline may be escaped, as in
// JSON).
func lineStart(s string, b int) bool {
	j := b
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j >= 2 && s[j-2:j] == "- " {
		return lineStart(s, j-2)
	}
	if j >= 7 && s[j-7:j] == "export " {
		return lineStart(s, j-7)
	}
	return j == 0 || s[j-1] == '\n' || s[j-1] == '\r' || j >= 2 && s[j-2] == '\\' && (s[j-1] == 'n' || s[j-1] == 'r')
}

// lineEnd reports whether only spaces, or a comment, follow end on its
// line.
func lineEnd(s string, end int) bool {
	j := end
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j == len(s) || s[j] == '\n' || s[j] == '\r' || s[j] == '#' && j > end ||
		s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'n' || s[j+1] == 'r')
}

// upperName reports whether name is written as an environment variable:
// capitals, digits and '_'.
func upperName(name string) bool {
	letter := false
	for i := range len(name) {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			letter = true
		case digit(c) || c == '_':
		default:
			return false
		}
	}
	return letter
}

func nameChar(c byte) bool { return word(c) || c == '-' || c == '.' }

// telegram matches a Telegram bot token, its id (8 to 10 digits), ':' and
// 35 characters, at the ':'.
func telegram(s string, i int) (match, bool) {
	d := i
	for d > 0 && i-d <= 10 && digit(s[d-1]) {
		d--
	}
	if n := i - d; n < 8 || n > 10 || d > 0 && alnum(s[d-1]) && !(d >= 3 && s[d-3:d] == "bot") {
		return match{}, false
	}
	end := run(s, i+1, base64URL, 36)
	if end-(i+1) != 35 || !hasDigitAndLetter(s[i+1:end]) {
		return match{}, false
	}
	return match{d, end, TelegramToken}, true
}

// mysqlPassword matches the password of mysql's -pPASSWORD (mysqldump,
// mysqladmin, mariadb alike), at the '-'.
func mysqlPassword(s string, i int) (match, bool) {
	line := s[max(0, i-512):i]
	if nl := strings.LastIndexByte(line, '\n'); nl >= 0 {
		line = line[nl+1:]
	}
	if !strings.Contains(line, "mysql") && !strings.Contains(line, "mariadb") {
		return match{}, false
	}
	v := i + 2
	if q := s[v]; q == '"' || q == '\'' {
		end := quotedEnd(s, v+1, string(q))
		if end <= v+1 || strings.IndexByte("$<{", s[v+1]) >= 0 {
			return match{}, false
		}
		return match{v + 1, end, Password}, true
	}
	end := v
	for end < len(s) && strings.IndexByte(" \t\r\n\"'`\\;&|()", s[end]) < 0 {
		end++
	}
	if end == v || strings.IndexByte("$<{", s[v]) >= 0 {
		return match{}, false
	}
	return match{v, end, Password}, true
}

// authHeader matches the credentials of an Authorization header's Bearer
// (an opaque token of 16 or more, letters and digits) or Basic scheme
// (base64 of user:password), at the 'B'.
func authHeader(s string, i int) (match, bool) {
	if !freeBefore(s, i) {
		return match{}, false
	}
	switch {
	case strings.HasPrefix(s[i:], "Bearer "):
		j := skip(s, i+len("Bearer "), " ")
		end := run(s, j, bearerChar, 8192)
		if end-j < 16 || !hasDigitAndLetter(s[j:end]) {
			return match{}, false
		}
		return match{j, end, BearerToken}, true
	case strings.HasPrefix(s[i:], "Basic "):
		j := skip(s, i+len("Basic "), " ")
		end := run(s, j, base64Std, 1024)
		if !basicCredentials(s[j:end]) {
			return match{}, false
		}
		return match{j, end, BasicAuth}, true
	}
	return match{}, false
}

func bearerChar(c byte) bool {
	return base64URL(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '='
}
