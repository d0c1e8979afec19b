package sample

import (
	"bytes"
	"os"
	"testing"
)

func TestSampleIsTheOriginalSession(t *testing.T) {
	data, err := Transcript()
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile("../../../shared/data/cc-sessions-spotter/" + Name)
	if err != nil {
		t.Skip("shared data not present:", err)
	}
	if !bytes.Equal(data, orig) {
		t.Fatal("the embedded sample differs from the original session")
	}
}

func TestWriteTo(t *testing.T) {
	path, err := WriteTo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Size() != 2759678 || st.Mode().Perm() != 0o600 {
		t.Fatalf("sample is %d bytes", st.Size())
	}
}
