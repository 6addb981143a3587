package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// The local engine's errors are engine's sentinels, so callers match them
// with errors.Is, not by their words. None of this starts Chromium.
func TestErrorsAreTheEngineSentinels(t *testing.T) {
	if _, err := New(Options{ChromiumPath: "/nonexistent/chromium"}); !errors.Is(err, engine.ErrNoBrowser) {
		t.Errorf("a browser path that names nothing: %v, want engine.ErrNoBrowser", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := chromium.Find(""); !errors.Is(err, engine.ErrNoBrowser) ||
		err.Error() != "Chromium was not found; install it with 'make deps' (Debian/Ubuntu package chromium)" {
		t.Errorf("no Chromium on PATH: %v, want engine.ErrNoBrowser with the install hint", err)
	}

	e := &Engine{set: engine.DefaultSettings(), frames: make(chan engine.Frame, 1)}
	if _, err := e.Step(context.Background(), action.ScrollBy(1)); !errors.Is(err, engine.ErrResetBeforeStepping) {
		t.Errorf("step before reset: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Step(context.Background(), action.ScrollBy(1)); !errors.Is(err, engine.ErrClosed) || err.Error() != "the browser engine is closed" {
		t.Errorf("step after close: %v, want engine.ErrClosed", err)
	}
	if _, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: "https://example.com/"}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("reset after close: %v, want engine.ErrClosed", err)
	}
}

// A remote browser that is gone is engine.ErrBrowserGone, which ends a
// served session at once; one that is only slow to answer is not, so its
// lease runs on to its deadline.
func TestRemoteGoneIsBrowserGone(t *testing.T) {
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{fmt.Errorf("renewing: %w: the context no longer exists", engine.ErrRemoteGone), true},
		{fmt.Errorf("renewing: %w: did not answer within 10s", engine.ErrRemoteSlow), false},
		{errors.New("the remote browser session s1 was released or its lease expired"), false},
	} {
		if got := errors.Is(c.err, engine.ErrBrowserGone); got != c.gone {
			t.Errorf("errors.Is(%v, engine.ErrBrowserGone) = %v, want %v", c.err, got, c.gone)
		}
		if c.gone && !strings.HasPrefix(c.err.Error(), "renewing: the remote browser is gone: ") {
			t.Errorf("%q does not say the remote browser is gone", c.err)
		}
	}
}
