package sample

import (
	"bytes"
	"os"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

func TestSampleIsTheOriginalSession(t *testing.T) {
	data, err := Transcript()
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(realdata.File(t, "cc-sessions-spotter/"+Name))
	if err != nil {
		t.Fatal(err)
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
