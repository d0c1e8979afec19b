package redacttest

import (
	"encoding/base64"
	"strings"
)

// Format is one kind of secret as it appears in an output, a command or a
// prompt: Text holds it, Secret is the part that must never come out of a
// redacting channel, Kind names the marker it gets.
type Format struct {
	Name   string
	Text   string
	Secret string
	Kind   string
}

// Near is text that looks like a format and is not a secret: it must come
// out of redaction unchanged.
type Near struct {
	Name string
	Text string
}

// Alphabets the fake secrets are cut from.
const (
	mixed  = "aB3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zCfLo"
	hexits = "3f9a1c7e5b2d8046"
	bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// Cut returns n characters of alphabet, from offset, repeating it.
func Cut(alphabet string, offset, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(alphabet[(offset+i)%len(alphabet)])
	}
	return b.String()
}

// Corpus returns every format redaction covers, one or more examples of
// each (the secrets are put together here, at run time).
func Corpus() []Format {
	slackHook := "https://hooks.sl" + "ack.com/services/" + "T0" + Cut(mixed, 3, 8) + "/B0" + Cut(mixed, 5, 8) + "/" + Cut(mixed, 7, 24)
	slackPath := slackHook[len("https://hooks.slack.com/services/"):]
	discord := "https://discord.com/api/" + "webhooks/1234567890123456789/" + Cut(mixed, 2, 68)
	discordTok := discord[len(discord)-68:]
	teams := "https://acme.webhook.office.com/" + "webhookb2/" + Cut(hexits, 0, 8) + "-" + Cut(hexits, 1, 4) + "@" + Cut(hexits, 2, 8) + "/IncomingWebhook/" + Cut(mixed, 4, 32)
	teamsPath := teams[len("https://acme.webhook.office.com/webhookb2/"):]
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + "Hx7" + "qP2vL9"))
	dockerAuth := base64.StdEncoding.EncodeToString([]byte("ci-bot:" + "dckr" + "_pat_" + Cut(mixed, 9, 20)))
	kubeKey := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC " + "PRIVATE KEY-----\n" + Cut(mixed, 1, 64) + "\n"))
	sas := Cut(mixed, 6, 43) + "%3D"
	accountKey := Cut(mixed, 8, 86) + "=="
	pemSSH := "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
		Cut(mixed, 2, 70) + "\n-----END OPENSSH " + "PRIVATE KEY-----"
	pw := "Tr0ub4" + "dor&3x"
	pw2 := "c0rrect" + "-h0rse_st@ple"
	return []Format{
		{"aws access key id", "export AWS_ACCESS_KEY_ID=" + AWSKeyID, AWSKeyID, "aws-access-key"},
		{"aws temporary key id", `"AccessKeyId": "` + AWSTempKeyID + `"`, AWSTempKeyID, "aws-access-key"},
		{"aws secret key", "aws_secret_access_key = " + AWSSecret, AWSSecret, "aws-secret-key"},
		{"github classic token", "GITHUB_TOKEN=" + GitHubToken, GitHubToken, "github-token"},
		{"github app token", "x-access-token " + GitHubApp, GitHubApp, "github-token"},
		{"github fine-grained token", "token " + GitHubPAT, GitHubPAT, "github-token"},
		{"gitlab token", "glab auth login --token " + GitLabToken, GitLabToken, "gitlab-token"},
		{"gitlab deploy token", "CI_DEPLOY=" + "gl" + "dt-" + Cut(mixed, 4, 20), "gl" + "dt-" + Cut(mixed, 4, 20), "gitlab-token"},
		{"slack token", "SLACK_BOT_TOKEN=" + SlackToken, SlackToken, "slack-token"},
		{"slack webhook url", "curl -X POST " + slackHook + " -d @msg.json", slackPath, "slack-webhook"},
		{"discord webhook url", "url = " + discord, discordTok, "discord-webhook"},
		{"teams webhook url", "POST " + teams, teamsPath, "teams-webhook"},
		{"anthropic key", "ANTHROPIC_API_KEY=" + AnthropicKey, AnthropicKey, "anthropic-key"},
		{"openai project key", "OPENAI_API_KEY=" + OpenAIProject, OpenAIProject, "openai-key"},
		{"openai legacy key", "key " + OpenAIKey, OpenAIKey, "openai-key"},
		{"google api key", "maps?key=" + GoogleAPIKey, GoogleAPIKey, "google-api-key"},
		{"google oauth client secret", `"client_secret":"` + "GOC" + "SPX-" + Cut(mixed, 1, 28) + `"`, "GOC" + "SPX-" + Cut(mixed, 1, 28), "google-oauth-secret"},
		{"google oauth access token", "access token: " + "ya" + "29." + Cut(mixed, 3, 120), "ya" + "29." + Cut(mixed, 3, 120), "google-oauth-token"},
		{"stripe live key", "Stripe.api_key = '" + StripeKey + "'", StripeKey, "stripe-key"},
		{"stripe test key", "STRIPE_SECRET=" + "sk" + "_test_" + Cut(mixed, 2, 24), "sk" + "_test_" + Cut(mixed, 2, 24), "stripe-key"},
		{"stripe webhook secret", "whsec" + "_" + Cut(mixed, 5, 32), "whsec" + "_" + Cut(mixed, 5, 32), "stripe-key"},
		{"jwt", "Authorization: Bearer " + JWT, JWT, "jwt"},
		{"rsa private key", "key:\n" + PEM + "\nafter", PEMBody, "private-key"},
		{"openssh private key", pemSSH, Cut(mixed, 2, 70), "private-key"},
		{"url password", "git clone https://oauth2:s3cr3t" + "-pass@gitlab.com/g/p.git", "s3cr3t" + "-pass", "url-password"},
		{"url password with a slash", "DATABASE_URL=postgres://app:pa55/" + "w0rd@db.internal:5432/app", "pa55/" + "w0rd", "url-password"},
		{"url password with an at sign", "redis://default:p@ss" + "w0rd@cache.internal:6379/0", "p@ss" + "w0rd", "url-password"},
		{"url query token", "GET https://api.x.io/v1?user=me&access_token=" + "abc123" + "def456&page=2", "abc123" + "def456", "url-secret"},
		{"aws presigned url signature", "https://b.s3.amazonaws.com/k?X-Amz-Signature=" + Cut(hexits, 3, 64) + "&x=1", Cut(hexits, 3, 64), "url-secret"},
		{"azure sas signature", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&sp=r&sig=" + sas, sas, "url-secret"},
		{"azure storage account key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + accountKey + ";EndpointSuffix=core.windows.net", accountKey, "azure-key"},
		{"azure client secret", "AZURE_CLIENT_SECRET " + "abC" + "8Q~" + Cut(mixed, 6, 34), "abC" + "8Q~" + Cut(mixed, 6, 34), "azure-client-secret"},
		{".env password", "DB_PASSWORD=" + pw + "\nDB_HOST=db", pw, "password"},
		{"postgres environment password", "PGPASSWORD=" + pw + " psql -h db app", pw, "password"},
		{"libpq connection string password", `psql "host=db user=app password=` + pw + ` dbname=app"`, pw, "password"},
		{"password flag", "mysqladmin --password=" + pw + " status", pw, "password"},
		{"connection string password", "Server=db;User Id=sa;Password=" + pw + ";Encrypt=true", pw, "password"},
		{"django secret key", "SECRET_KEY = 'django-insecure-" + Cut(mixed, 7, 40) + "'", "django-insecure-" + Cut(mixed, 7, 40), "secret"},
		{"yaml password", "database:\n  user: app\n  password: " + pw + "\n  host: db", pw, "password"},
		{"json password", `{"user": "app", "password": "` + pw + `"}`, pw, "password"},
		{"yaml api key", "  api_key: " + Cut(mixed, 10, 32), Cut(mixed, 10, 32), "secret"},
		{"npm token", "//registry.npmjs.org/:_authToken=" + "npm" + "_" + Cut(mixed, 3, 36), "npm" + "_" + Cut(mixed, 3, 36), "npm-token"},
		{"pypi token", "password = " + "pypi-" + "AgEIcHlwaS5vcmc" + Cut(mixed, 5, 60), "pypi-" + "AgEIcHlwaS5vcmc" + Cut(mixed, 5, 60), "pypi-token"},
		{"hugging face token", "HF_TOKEN=" + "hf" + "_" + Cut(mixed, 8, 34), "hf" + "_" + Cut(mixed, 8, 34), "huggingface-token"},
		{"sendgrid key", "SENDGRID=" + "SG" + "." + Cut(mixed, 1, 22) + "." + Cut(mixed, 4, 43), "SG" + "." + Cut(mixed, 1, 22) + "." + Cut(mixed, 4, 43), "sendgrid-key"},
		{"twilio api key", "twilio api:core:keys " + "SK" + Cut(hexits, 5, 32), "SK" + Cut(hexits, 5, 32), "twilio-key"},
		{"bearer token", "curl -H 'Authorization: Bearer " + "tk" + Cut(mixed, 11, 38) + "' https://api.x.io", "tk" + Cut(mixed, 11, 38), "bearer-token"},
		{"basic auth", "Authorization: Basic " + basic, basic, "basic-auth"},
		{"digitalocean token", "doctl auth init -t " + "dop" + "_v1_" + Cut(hexits, 2, 64), "dop" + "_v1_" + Cut(hexits, 2, 64), "digitalocean-token"},
		{"shopify token", "X-Shopify-Access-Token: " + "shp" + "at_" + Cut(hexits, 7, 32), "shp" + "at_" + Cut(hexits, 7, 32), "shopify-token"},
		{"vault token", "VAULT_TOKEN=" + "hv" + "s." + Cut(mixed, 9, 90), "hv" + "s." + Cut(mixed, 9, 90), "vault-token"},
		{"age secret key", "# created\n" + "AGE-SECRET" + "-KEY-1" + Cut(bech32, 3, 58), "AGE-SECRET" + "-KEY-1" + Cut(bech32, 3, 58), "age-secret-key"},
		{"telegram bot token", "https://api.telegram.org/bot" + "123456789:" + "AA" + Cut(mixed, 2, 33) + "/getMe", "123456789:" + "AA" + Cut(mixed, 2, 33), "telegram-bot-token"},
		{"databricks token", "DATABRICKS_HOST=x " + "da" + "pi" + Cut(hexits, 9, 32), "da" + "pi" + Cut(hexits, 9, 32), "databricks-token"},
		{"mysql password argument", "mysql -u root -p" + pw2 + " app < dump.sql", pw2, "password"},
		{"kubeconfig client key", "users:\n- name: admin\n  user:\n    client-key-data: " + kubeKey + "\n", kubeKey, "private-key"},
		{"docker config auth", `{"auths":{"ghcr.io":{"auth":"` + dockerAuth + `"}}}`, dockerAuth, "basic-auth"},
		{"rubygems key", "GEM_HOST_API_KEY=" + "rubygems" + "_" + Cut(hexits, 4, 48), "rubygems" + "_" + Cut(hexits, 4, 48), "rubygems-token"},
		{"linear key", "lin" + "_api_" + Cut(mixed, 6, 40), "lin" + "_api_" + Cut(mixed, 6, 40), "linear-key"},
		{"atlassian token", "JIRA_TOKEN=" + "ATATT3" + Cut(mixed, 2, 180), "ATATT3" + Cut(mixed, 2, 180), "atlassian-token"},
		{"doppler token", "DOPPLER_TOKEN=" + "dp" + ".pt." + Cut(mixed, 3, 43), "dp" + ".pt." + Cut(mixed, 3, 43), "doppler-token"},
		{"groq key", "gsk" + "_" + Cut(mixed, 7, 52), "gsk" + "_" + Cut(mixed, 7, 52), "groq-key"},
		{"perplexity key", "pplx" + "-" + Cut(mixed, 1, 48), "pplx" + "-" + Cut(mixed, 1, 48), "perplexity-key"},
		{"sentry token", "SENTRY_AUTH_TOKEN=" + "sntryu" + "_" + Cut(hexits, 1, 64), "sntryu" + "_" + Cut(hexits, 1, 64), "sentry-token"},
		{"grafana token", "glsa" + "_" + Cut(mixed, 4, 32) + "_" + Cut(hexits, 0, 8), "glsa" + "_" + Cut(mixed, 4, 32) + "_" + Cut(hexits, 0, 8), "grafana-token"},
		{"postman key", "PMAK" + "-" + Cut(hexits, 3, 24) + "-" + Cut(hexits, 6, 34), "PMAK" + "-" + Cut(hexits, 3, 24) + "-" + Cut(hexits, 6, 34), "postman-key"},
		{"tailscale key", "tailscale up --authkey " + "tskey" + "-auth-" + Cut(mixed, 2, 12) + "-" + Cut(mixed, 5, 30), "tskey" + "-auth-" + Cut(mixed, 2, 12) + "-" + Cut(mixed, 5, 30), "tailscale-key"},
	}
}

// Nears returns text that only looks like the formats: hashes, ids,
// base64 data, code that names a secret without holding one, placeholders.
func Nears() []Near {
	return []Near{
		{"git commit and sha256", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 sha256:" + strings.Repeat("ab12", 16)},
		{"uuid", "session 0b6f3c8e-6a2b-4c1d-9e8f-0123456789ab"},
		{"base64 image", `{"type":"image","source":{"data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}}`},
		{"short prefixes", "sk-short; ghp_short; glpat-short; xoxb-1; AIzaShort; npm_install; hf_hub; SG.x; hvs.short; dapi-docs"},
		{"aws look-alikes", "ASIA PACIFIC, AKIA123 (too short), AKIA" + strings.Repeat("X", 20) + " (too long)"},
		{"emails and scoped packages", "mail dev@example.com; git@github.com:org/repo.git; npm i @scope/pkg; go get x@v1.2.3"},
		{"urls without credentials", "https://github.com/org/repo/blob/main/x.go#L10 postgres://localhost:5432/db https://x.io:8080/a/@scope/b"},
		{"short flag", "ctxkeep --token=abc123 (a flag value too short to be a token)"},
		{"code keyword arguments", "client(token=token, password=pw)\nlogin(password=password, user=user)"},
		{"code references", "password = os.environ[\"DB_PASSWORD\"]\ntoken: self.token\nSECRET_KEY = settings.SECRET_KEY\nPassword: cfg.Password,"},
		{"types and comparisons", "password: string;\n  token?: string\nif password == \"\" {\nif cfg.Password != secret {\npassword: str\n"},
		{"placeholders", "DB_PASSWORD=${DB_PASSWORD}\npassword: \"{{ .Values.password }}\"\napi_key: <your-key>\ntoken: ***\nPGPASSWORD=$(cat f)\n&sig={sig}"},
		{"test log", "--- PASS: TestPassword (0.00s)\nPASS\nok  \tgithub.com/x/auth\t0.012s\nPWD=/home/dev"},
		{"prose", "The password: it must be 12 characters. Set the token in your settings. Basic authentication and Bearer tokens are supported."},
		{"json without secrets", `{"max_tokens": 4096, "input_tokens": 12, "token_type": "Bearer", "auth": "none", "password_required": true}`},
		{"a certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"mysql without a password", "mysql -u root -p app; mysql -h db -P 3306"},
		{"ports and times", "listening on 127.0.0.1:8080 at 12:34:56; file.go:123:45: error"},
		{"hex digests in words", "SKIPPED " + strings.Repeat("9f", 16) + " and md5 " + strings.Repeat("a1", 16)},
		{"docker auth that is not base64 credentials", `{"auth": "` + base64.StdEncoding.EncodeToString([]byte("just text without a colon")) + `"}`},
	}
}

// NearOf is, for each format of Corpus by name, text that looks like it
// and is not a secret (too short, a placeholder, code, a public value):
// each format's negative case.
func NearOf(name string) (string, bool) {
	near := map[string]string{
		"aws access key id":                "export AWS_REGION=us-east-1 AKIA" + "IOSFODNN7EXAMPL (one short)",
		"aws temporary key id":             `"AccessKeyId": "AS` + `IA` + `Y34FZKBOKMUTVV7AXXXX"`,
		"aws secret key":                   "aws_secret_access_key = ${AWS_SECRET}",
		"github classic token":             "gh" + "p_" + "aB3dE6gH9jK2mN5pQ8rS1",
		"github app token":                 "gh" + "s_short",
		"github fine-grained token":        "github" + "_pat_short",
		"gitlab token":                     "gl" + "pat-short",
		"gitlab deploy token":              "gl" + "dt-short",
		"slack token":                      "xo" + "xb-1",
		"slack webhook url":                "see https://hooks.sl" + "ack.com/services/ and hooks.slack.com/apps",
		"discord webhook url":              "https://discord.com/api/" + "webhooks",
		"teams webhook url":                "https://acme.webhook.office.com/" + "webhookb2/short",
		"anthropic key":                    "sk-" + "ant-short",
		"openai project key":               "sk-" + "proj-short",
		"openai legacy key":                "task-" + Cut(mixed, 0, 48),
		"google api key":                   "AI" + "zaShort",
		"google oauth client secret":       "GOC" + "SPX-short",
		"google oauth access token":        "ya" + "29.short",
		"stripe live key":                  "sk" + "_live_short",
		"stripe test key":                  "pk" + "_test_" + Cut(mixed, 2, 24) + " (publishable)",
		"stripe webhook secret":            "whsec" + "_short",
		"jwt":                              "eyJhbGciOi without dots",
		"rsa private key":                  "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"openssh private key":              "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0YQ dev@laptop",
		"url password":                     "git clone https://gitlab.com/g/p.git; ssh git@github.com",
		"url password with a slash":        "https://x.io:8080/a/@scope/b",
		"url password with an at sign":     "https://user@host.com/p@v2 and npm i @scope/pkg",
		"url query token":                  "https://h/p?page_token=$NEXT&token=***&secret={secret}",
		"aws presigned url signature":      "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-SignedHeaders=host",
		"azure sas signature":              "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig={sig}",
		"azure storage account key":        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=$AZURE_KEY;",
		"azure client secret":              "cd ~/.config; echo 8Q~ done",
		".env password":                    "DB_PASSWORD=${DB_PASSWORD}\nDB_HOST=db",
		"postgres environment password":    "PGPASSWORD=$(cat ~/.pgpass) psql",
		"libpq connection string password": `psql "host=db user=app password= dbname=app"`,
		"password flag":                    "mysqladmin --password=$PASS status",
		"connection string password":       "Server=db;User Id=sa;Password=;Encrypt=true",
		"django secret key":                "SECRET_KEY = os.environ['SECRET_KEY']",
		"yaml password":                    "database:\n  password: ${DB_PASS}\n  password_file: /run/secrets/db",
		"json password":                    `{"password_required": true, "password": ""}`,
		"yaml api key":                     "  api_key: <your-key>",
		"npm token":                        "npm" + "_config_cache=/tmp/npm",
		"pypi token":                       "pypi" + "-test upload",
		"hugging face token":               "hf" + "_hub_download(repo_id)",
		"sendgrid key":                     "SG" + ".x",
		"twilio api key":                   "SK" + Cut(hexits, 5, 31) + " (one short)",
		"bearer token":                     "Authorization: Bearer ${TOKEN}; Bearer tokens are supported",
		"basic auth":                       "Basic authentication is disabled",
		"digitalocean token":               "dop" + "_v1_short",
		"shopify token":                    "shp" + "at_short",
		"vault token":                      "hv" + "s.short",
		"age secret key":                   "AGE-SECRET" + "-KEY-1SHORT",
		"telegram bot token":               "at 12:34:56 on 127.0.0.1:8080",
		"databricks token":                 "da" + "pi-docs and dapi" + Cut(hexits, 9, 31),
		"mysql password argument":          "mysql -u root -p app",
		"kubeconfig client key":            "    client-key-data: ${CLIENT_KEY}",
		"docker config auth":               `{"auths":{"ghcr.io":{"auth":"none"}}}`,
		"rubygems key":                     "rubygems" + "_" + Cut(hexits, 4, 47),
		"linear key":                       "lin" + "_api_short",
		"atlassian token":                  "ATATT3" + "short",
		"doppler token":                    "dp" + ".pt.short",
		"groq key":                         "gsk" + "_short",
		"perplexity key":                   "pplx" + "-short",
		"sentry token":                     "sntryu" + "_short",
		"grafana token":                    "glsa" + "_short",
		"postman key":                      "PMAK" + "-short",
		"tailscale key":                    "tskey" + "-short",
	}
	s, ok := near[name]
	return s, ok
}
