package archive

import "testing"

func TestTaskNumber(t *testing.T) {
	for in, want := range map[string]string{
		"Task #12 created successfully: Write the limiter": "12",
		"Task created":           "",
		"see #a, then #7 and #8": "7",
		"ends with #":            "",
		"Task #3":                "3",
	} {
		if got := taskNumber(in); got != want {
			t.Errorf("taskNumber(%q) = %q, want %q", in, got, want)
		}
	}
}
