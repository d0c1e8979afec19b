package redact

import "strings"

// Tokens recognised by a literal prefix, their alphabet and their length:
// the prefix is found from an anchor byte inside it ('_', '-', '.') by
// looking at the word before the anchor, so that one pass per anchor byte
// serves every prefix. Lengths and alphabets follow the issuers' formats
// (and gitleaks' default rules, which list them).
const (
	NPMToken          = "npm-token"
	PyPIToken         = "pypi-token"
	RubyGemsToken     = "rubygems-token"
	HuggingFaceToken  = "huggingface-token"
	SendGridKey       = "sendgrid-key"
	TwilioKey         = "twilio-key"
	ShopifyToken      = "shopify-token"
	DigitalOceanToken = "digitalocean-token"
	DatabricksToken   = "databricks-token"
	VaultToken        = "vault-token"
	AgeKey            = "age-secret-key"
	GoogleOAuthSecret = "google-oauth-secret"
	GoogleOAuthToken  = "google-oauth-token"
	AzureClientSecret = "azure-client-secret"
	AtlassianToken    = "atlassian-token"
	GrafanaToken      = "grafana-token"
	SentryToken       = "sentry-token"
	LinearKey         = "linear-key"
	DopplerToken      = "doppler-token"
	PostmanKey        = "postman-key"
	HerokuKey         = "heroku-key"
	PerplexityKey     = "perplexity-key"
	XAIKey            = "xai-key"
	GroqKey           = "groq-key"
	ReplicateToken    = "replicate-token"
	TailscaleKey      = "tailscale-key"
	SquareToken       = "square-token"
	PlanetScaleToken  = "planetscale-token"
	PrefectToken      = "prefect-token"
	OnePasswordToken  = "1password-token"
	ClojarsToken      = "clojars-token"
	SupabaseToken     = "supabase-token"
	FlyToken          = "fly-token"
	NotionToken       = "notion-token"
	TerraformToken    = "terraform-token"
)

// atUnderscore: prefixes ending in, or holding, '_'.
func atUnderscore(s string, i int) (match, bool) {
	w := wordStart(s, i)
	switch s[w:i] {
	case "ghp", "gho", "ghu", "ghs", "ghr":
		return token(s, w, i+1, alnum, 36, 255, GitHubToken)
	case "github":
		if strings.HasPrefix(s[i:], "_pat_") {
			return token(s, w, i+5, word, 22, 255, GitHubToken)
		}
	case "sk", "rk":
		for _, mode := range []string{"_live_", "_test_", "_prod_"} {
			if strings.HasPrefix(s[i:], mode) {
				return token(s, w, i+len(mode), alnum, 16, 247, StripeKey)
			}
		}
	case "whsec":
		return token(s, w, i+1, base64Std, 24, 255, StripeKey)
	case "npm":
		return token(s, w, i+1, alnum, 36, 36, NPMToken)
	case "hf":
		return token(s, w, i+1, alnum, 30, 40, HuggingFaceToken)
	case "api":
		if strings.HasPrefix(s[i:], "_org_") {
			return token(s, w, i+5, alnum, 30, 40, HuggingFaceToken)
		}
	case "dop", "doo", "dor":
		if strings.HasPrefix(s[i:], "_v1_") {
			return token(s, w, i+4, hex, 64, 64, DigitalOceanToken)
		}
	case "shpat", "shpca", "shppa", "shpss":
		return token(s, w, i+1, hex, 32, 32, ShopifyToken)
	case "rubygems":
		return token(s, w, i+1, hex, 48, 48, RubyGemsToken)
	case "sntryu":
		return token(s, w, i+1, hex, 64, 64, SentryToken)
	case "sntrys":
		return token(s, w, i+1, sentryChar, 60, 1024, SentryToken)
	case "lin":
		if strings.HasPrefix(s[i:], "_api_") {
			return token(s, w, i+5, alnum, 40, 40, LinearKey)
		}
	case "pnu":
		return token(s, w, i+1, alnum, 36, 36, PrefectToken)
	case "gsk":
		return token(s, w, i+1, alnum, 52, 52, GroqKey)
	case "r8":
		return token(s, w, i+1, alnum, 37, 40, ReplicateToken)
	case "glsa":
		return token(s, w, i+1, word, 41, 41, GrafanaToken)
	case "glc":
		return token(s, w, i+1, base64Std, 32, 400, GrafanaToken)
	case "pscale":
		for _, p := range []string{"_tkn_", "_oauth_", "_pw_"} {
			if strings.HasPrefix(s[i:], p) {
				return token(s, w, i+len(p), dottedWord, 32, 64, PlanetScaleToken)
			}
		}
	case "ops":
		if strings.HasPrefix(s[i:], "_eyJ") {
			return token(s, w, i+1, base64Std, 250, 4096, OnePasswordToken)
		}
	case "CLOJARS":
		return token(s, w, i+1, alnum, 60, 60, ClojarsToken)
	case "sbp":
		return token(s, w, i+1, hex, 40, 40, SupabaseToken)
	case "fo1":
		return token(s, w, i+1, base64URL, 43, 43, FlyToken)
	case "ntn":
		return token(s, w, i+1, alnum, 46, 46, NotionToken)
	case "secret":
		return token(s, w, i+1, alnum, 43, 43, NotionToken) // Notion's integration secrets before ntn_
	case "aws", "AWS", "Aws":
		if hasPrefixFold(s[i:], "_secret_access_key") {
			return awsSecretKey(s, w, i+len("_secret_access_key"))
		}
	}
	return match{}, false
}

// atHyphen: PEM blocks, and prefixes ending in, or holding, '-'.
func atHyphen(s string, i int) (match, bool) {
	if strings.HasPrefix(s[i:], "-----BEGIN ") {
		return pemBlock(s, i)
	}
	if i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') && i+2 < len(s) && s[i+1] == 'p' {
		return mysqlPassword(s, i)
	}
	w := wordStart(s, i)
	switch s[w:i] {
	case "glpat", "gldt", "glrt", "glptt", "gloas", "glft", "glimt", "glagent", "glsoat", "glffct", "glcbt":
		return token(s, w, i+1, base64URL, 20, 300, GitLabToken)
	case "xoxa", "xoxb", "xoxp", "xoxr", "xoxo", "xoxs", "xoxe", "xapp":
		return token(s, w, i+1, slackChar, 10, 255, SlackToken)
	case "sk":
		rest := s[i+1:]
		switch {
		case strings.HasPrefix(rest, "ant-"):
			return token(s, w, i+5, base64URL, 32, 1024, AnthropicKey)
		case strings.HasPrefix(rest, "proj-"), strings.HasPrefix(rest, "svcacct-"), strings.HasPrefix(rest, "admin-"):
			return token(s, w, i+1+strings.IndexByte(rest, '-')+1, base64URL, 40, 1024, OpenAIKey)
		}
		// The legacy sk-… of 48, and the sk-… of 32 hex or more that
		// other model APIs copied.
		m, ok := token(s, w, i+1, alnum, 32, 100, OpenAIKey)
		return m, ok && hasDigitAndLetter(s[i+1:m.end])
	case "AGE":
		if strings.HasPrefix(s[i:], "-SECRET-KEY-1") {
			return token(s, w, i+len("-SECRET-KEY-1"), bech32Upper, 58, 58, AgeKey)
		}
	case "pypi":
		if strings.HasPrefix(s[i:], "-AgE") {
			return token(s, w, i+1, base64URL, 50, 4096, PyPIToken)
		}
	case "GOCSPX":
		return token(s, w, i+1, base64URL, 28, 32, GoogleOAuthSecret)
	case "PMAK":
		return token(s, w, i+1, base64URL, 59, 59, PostmanKey)
	case "HRKU":
		if strings.HasPrefix(s[i:], "-AA") {
			return token(s, w, i+1, base64URL, 60, 60, HerokuKey)
		}
	case "pplx":
		return token(s, w, i+1, alnum, 48, 48, PerplexityKey)
	case "xai":
		return token(s, w, i+1, alnum, 80, 80, XAIKey)
	case "tskey":
		return token(s, w, i+1, base64URL, 20, 255, TailscaleKey)
	case "sq0atp", "sq0csp":
		return token(s, w, i+1, base64URL, 22, 60, SquareToken)
	}
	return match{}, false
}

// atDot: prefixes ending in '.', and webhook URLs, found at their first
// dot.
func atDot(s string, i int) (match, bool) {
	if i == 0 || strings.IndexByte("Gsbr9pde", s[i-1]) < 0 && !strings.HasPrefix(s[i:], ".atlasv1.") {
		return match{}, false // the last letter of no prefix below: most dots end here
	}
	w := wordStart(s, i)
	switch s[w:i] {
	case "SG": // SendGrid: SG.<22>.<43>
		m, ok := token(s, w, i+1, base64URL, 22, 22, SendGridKey)
		if !ok || m.end >= len(s) || s[m.end] != '.' {
			return match{}, false
		}
		return token(s, w, m.end+1, base64URL, 43, 43, SendGridKey)
	case "hvs", "hvb", "hvr":
		return token(s, w, i+1, base64URL, 24, 512, VaultToken)
	case "ya29":
		return token(s, w, i+1, base64URL, 20, 4096, GoogleOAuthToken)
	case "dp":
		for _, p := range []string{".pt.", ".st.", ".ct.", ".sa.", ".scim.", ".audit."} {
			if strings.HasPrefix(s[i:], p) {
				return token(s, w, i+len(p), alnum, 40, 44, DopplerToken)
			}
		}
	case "hooks":
		if strings.HasPrefix(s[i:], ".slack.com/") {
			return webhookPath(s, i+len(".slack.com/"), "services/workflows/triggers", 20, SlackWebhook)
		}
	case "discord", "discordapp":
		if strings.HasPrefix(s[i:], ".com/api/webhooks/") {
			return webhookPath(s, i+len(".com/api/webhooks/"), "", 40, DiscordWebhook)
		}
	case "office":
		if w >= 8 && s[w-8:w] == "webhook." && strings.HasPrefix(s[i:], ".com/webhookb2/") {
			return webhookPath(s, i+len(".com/webhookb2/"), "", 40, TeamsWebhook)
		}
	}
	if strings.HasPrefix(s[i:], ".atlasv1.") && w > 0 && i-w == 14 { // Terraform Cloud: <14>.atlasv1.<60-70>
		return token(s, w, i+len(".atlasv1."), base64URL, 60, 70, TerraformToken)
	}
	return match{}, false
}

// literals are prefixes holding no anchor byte, each looked for with
// strings.Index (as fast as an anchor's IndexByte).
var literals = [...]string{"dapi", "ATATT3"}

func atLiteral(s string, i int, lit string) (match, bool) {
	switch lit {
	case "dapi": // Databricks: dapi and 32 hex, perhaps -N
		m, ok := token(s, i, i+4, hex, 32, 32, DatabricksToken)
		if ok && m.end+1 < len(s) && s[m.end] == '-' && digit(s[m.end+1]) {
			m.end += 2
		}
		return m, ok && (m.end == len(s) || !alnum(s[m.end]))
	case "ATATT3": // Atlassian API tokens
		return token(s, i, i+6, atlassianChar, 150, 255, AtlassianToken)
	}
	return match{}, false
}

// twilioKey matches a Twilio API key, SK and 32 hex digits, at the 'K'.
func twilioKey(s string, i int) (match, bool) {
	if i == 0 || s[i-1] != 'S' {
		return match{}, false
	}
	m, ok := token(s, i-1, i+1, hex, 32, 32, TwilioKey)
	return m, ok && (m.end == len(s) || !alnum(s[m.end])) && hasDigitAndLetter(s[i+1:m.end])
}

// azureClientSecret matches an Entra ID (Azure AD) client secret, three
// characters, a digit, Q~ and 31 to 34 more, at the '~'.
func azureClientSecret(s string, i int) (match, bool) {
	if i < 5 || s[i-1] != 'Q' || !digit(s[i-2]) {
		return match{}, false
	}
	start := i - 5
	for k := start; k < i-2; k++ {
		if !azureChar(s[k]) {
			return match{}, false
		}
	}
	if start > 0 && azureChar(s[start-1]) {
		return match{}, false
	}
	end := run(s, i+1, func(c byte) bool { return azureChar(c) || c == '-' }, 35)
	if n := end - (i + 1); n < 31 || n > 34 {
		return match{}, false
	}
	return match{start, end, AzureClientSecret}, true
}

// wordStart is where the run of letters and digits that ends at i starts
// (looking back at most 16 bytes).
func wordStart(s string, i int) int {
	w := i
	for w > 0 && i-w < 16 && alnum(s[w-1]) {
		w--
	}
	return w
}

func hasDigitAndLetter(s string) bool {
	d, l := false, false
	for i := range len(s) {
		d = d || digit(s[i])
		l = l || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z'
	}
	return d && l
}

func digit(c byte) bool         { return c >= '0' && c <= '9' }
func hex(c byte) bool           { return digit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func base64Std(c byte) bool     { return alnum(c) || c == '+' || c == '/' || c == '=' }
func dottedWord(c byte) bool    { return word(c) || c == '=' || c == '.' || c == '-' }
func sentryChar(c byte) bool    { return base64Std(c) || c == '_' }
func atlassianChar(c byte) bool { return base64URL(c) || c == '=' }
func azureChar(c byte) bool     { return word(c) || c == '~' || c == '.' }

// bech32Upper is the alphabet of an age key's body.
func bech32Upper(c byte) bool { return strings.IndexByte("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", c) >= 0 }
