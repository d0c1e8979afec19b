package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"unsafe"
)

// JSON redacts the strings of a JSON document (a tool's input, say) and
// keeps everything else byte for byte: a string holding a secret is
// written again with its marker, the document stays valid JSON. raw
// itself is returned when no string holds a secret. A string is looked at
// as it decodes, so a token after an escaped newline ("…\nghp_…") is
// found; a member "aws_secret_access_key" has its value redacted. Text
// that is not JSON is redacted as text.
func JSON(raw []byte) []byte {
	s := unsafe.String(unsafe.SliceData(raw), len(raw)) // read only, not kept
	if strings.IndexByte(s, '\\') < 0 && find(s) == nil {
		return raw // no escapes: every string is a part of s, and s holds no secret
	}
	if !json.Valid(raw) {
		return Bytes(raw)
	}
	var out []byte
	last, awsKey := 0, -1 // awsKey: the end of a string "aws_secret_access_key"
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		end, _ := stringEnd(s, i) // valid JSON: there is one
		text, ok := decode(s[i:end])
		red := text
		switch {
		case !ok:
		case awsKey >= 0 && strings.Trim(s[awsKey:i], " \t\r\n:") == "" && len(text) == 40 && run(text, 0, awsSecretChar, 41) == 40:
			red = Marker(AWSSecretKey)
		default:
			red = String(text)
		}
		awsKey = -1
		if strings.EqualFold(text, "aws_secret_access_key") {
			awsKey = end
		}
		if red != text {
			out = append(append(out, s[last:i]...), encode(red)...)
			last = end
		}
		i = end - 1
	}
	if out == nil {
		return raw
	}
	return append(out, s[last:]...)
}

// stringEnd returns the end of the JSON string literal that starts at the
// quote s[i], past its closing quote.
func stringEnd(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// decode returns the text of a JSON string literal, quotes included; the
// literal's own bytes when it has no escapes.
func decode(lit string) (string, bool) {
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return body, true
	}
	var text string
	err := json.Unmarshal([]byte(lit), &text)
	return text, err == nil
}

// encode writes text as a JSON string literal, escaping no more than JSON
// needs.
func encode(text string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(text) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
