// Package redacttest is test support: fake secrets of the shapes
// internal/redact recognises, put together at run time so that no secret
// scanner takes a test for a leak.
package redacttest

import "strings"

// Secrets, one of each kind (several for some).
var (
	AWSKeyID      = "AK" + "IA" + "IOSFODNN7EXAMPLE"
	AWSTempKeyID  = "AS" + "IA" + "Y34FZKBOKMUTVV7A"
	AWSSecret     = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
	GitHubToken   = "gh" + "p_" + strings.Repeat("aB3dE6gH9j", 3) + "K2mN5p"
	GitHubApp     = "gh" + "s_" + strings.Repeat("Zy8xW7vU6t", 4)
	GitHubPAT     = "github" + "_pat_" + "11ABCDEFG0123456789abc_" + strings.Repeat("Q1w2E3r4T5", 6)
	GitLabToken   = "gl" + "pat-" + "xYz12-AbC34_dEf56gHi7"
	SlackToken    = "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	AnthropicKey  = "sk-" + "ant-api03-" + strings.Repeat("Ab1_Cd2-Ef3", 8) + "AA"
	OpenAIKey     = "sk-" + strings.Repeat("A1b2C3d4E5f6", 4)
	OpenAIProject = "sk-" + "proj-" + strings.Repeat("Xy9_Zw8-Vu7", 6)
	GoogleAPIKey  = "AI" + "za" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
	StripeKey     = "sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	JWT           = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	// PEMBody is the first line of PEM's body: what must never show.
	PEMBody = "MIIEowIBAAKCAQEAvRwH0v9pT2gk3wTqGZ1lq8mqV9Z4Ln0W"
	// PEM is a private key block of 4 lines, without a final newline.
	PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PEMBody + "\nq2b4kVcY1pZ3sA7tN8mK9xR2fH6jD4gL1wQ5eU3iO0pS7yT\n-----END RSA " + "PRIVATE KEY-----"
)
