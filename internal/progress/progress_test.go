package progress

import (
	"context"
	"strings"
	"testing"
)

// Off a terminal a display writes nothing at all.
func TestOffDrawsNothing(t *testing.T) {
	var b strings.Builder
	d := New(&b, false)
	d.Start("verifying blobs", 10)
	d.Add(3)
	d.Println("a failure")
	d.Done()
	if b.Len() != 0 {
		t.Errorf("wrote %q off a terminal", b.String())
	}
	var none *Display // what From returns without a display
	none.Start("x", 1)
	none.Add(1)
	none.Done()
	if From(context.Background()) != nil {
		t.Error("From of a bare context is not nil")
	}
}

// On a terminal the line is drawn, redrawn in place, and erased at the end.
func TestOnDrawsAndErases(t *testing.T) {
	var b strings.Builder
	d := New(&b, true)
	ctx := With(context.Background(), d)
	p := From(ctx)
	p.Start("verifying blobs", 4)
	for range 4 {
		p.Add(1)
	}
	p.StartBytes("reading", 2_000_000)
	p.Set(1_000_000)
	p.Done()
	out := b.String()
	for _, want := range []string{"verifying blobs 0/4 (0%)", "verifying blobs 4/4 (100%)", "reading 1.0 MB/2.0 MB (50%)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the line is not erased at the end: %q", out)
	}
	if strings.Contains(out, "\n") {
		t.Errorf("a progress line ended in a newline: %q", out)
	}
}

// A million steps do not make a million drawings.
func TestThrottled(t *testing.T) {
	var b strings.Builder
	d := New(&b, true)
	d.Start("x", 1_000_000)
	for range 1_000_000 {
		d.Add(1)
	}
	d.Done()
	if n := strings.Count(b.String(), "\r"); n > 300 {
		t.Errorf("%d drawings for a million steps", n)
	}
}
