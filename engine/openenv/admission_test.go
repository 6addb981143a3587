package openenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// More agents than the machine holds (the limit made impossible to meet
// rather than the machine loaded): the sessions admitted before keep
// working, their later resets too; every new reset, over the WebSocket and
// over HTTP, is refused at once with CAPACITY_BUSY and when to retry; once
// the machine has room, the refused agents' retried resets are admitted on
// the same sockets and every agent's every step is answered.
func TestAdmissionRefusesWhenBusy(t *testing.T) {
	s := newSite(t)
	var es engines
	srv, hs := testServer(t, Options{NewEngine: browserFactoryOn(t, &es, privatePool(t)), MaxSessions: 6})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const admitted, waiting, steps = 2, 3, 4

	var clients []*Client
	for range admitted + waiting {
		c, err := Dial(ctx, hs.URL, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		clients = append(clients, c)
	}
	// agent runs one episode: a reset on the site and steps clicks, each
	// of which opens /clicked and is sent back to the form by a reset.
	agent := func(c *Client) error {
		if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: s.URL}); err != nil {
			return fmt.Errorf("reset: %w", err)
		}
		for i := range steps {
			o, err := c.Step(ctx, action.ClickAt(400, 300))
			if err != nil {
				return fmt.Errorf("step %d: %w", i+1, err)
			}
			if o.URL != s.URL+"/clicked" || o.Error != "" {
				return fmt.Errorf("step %d: on %q, error %q", i+1, o.URL, o.Error)
			}
			if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: s.URL}); err != nil {
				return fmt.Errorf("reset after step %d: %w", i+1, err)
			}
		}
		return nil
	}

	for _, c := range clients[:admitted] {
		if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: s.URL}); err != nil {
			t.Fatalf("reset before the limit: %v", err)
		}
	}
	srv.SetAdmission(Admission{MinFreeMemory: 1 << 62, RetryAfter: 2 * time.Second})

	// The admitted agents work on while the others are refused.
	var wg sync.WaitGroup
	errs := make(chan error, admitted+waiting)
	for i, c := range clients[:admitted] {
		wg.Go(func() {
			if err := agent(c); err != nil {
				errs <- fmt.Errorf("admitted agent %d: %w", i, err)
			}
		})
	}
	var retry []time.Duration
	for i, c := range clients[admitted:] {
		_, err := c.Reset(ctx, engine.ResetOptions{StartURL: s.URL})
		var se *ServerError
		if !errors.As(err, &se) || se.Code != CodeCapacityBusy {
			t.Fatalf("agent %d over the limit: %v, want %s", admitted+i, err, CodeCapacityBusy)
		}
		if !strings.Contains(se.Message, "--min-free-memory") || !strings.Contains(se.Message, "send the reset again after 2 s") {
			t.Errorf("the refusal says: %s", se.Message)
		}
		retry = append(retry, se.RetryAfter())
	}
	resp, err := http.Post(hs.URL+"/reset", "application/json", strings.NewReader(`{"start_url":"`+s.URL+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "2" ||
		!strings.Contains(string(body), `"code":"CAPACITY_BUSY"`) || !strings.Contains(string(body), `"retry_after":2`) {
		t.Errorf("HTTP POST /reset over the limit: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	wg.Wait()

	// Room again: the refused agents retry on their sockets.
	srv.SetAdmission(Admission{})
	for i, c := range clients[admitted:] {
		if retry[i] != 2*time.Second {
			t.Errorf("agent %d was told to retry after %v, want 2s", admitted+i, retry[i])
		}
		wg.Go(func() {
			if err := agent(c); err != nil {
				errs <- fmt.Errorf("agent %d, retried: %w", admitted+i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := srv.RefusedBusy(); n != waiting+1 {
		t.Errorf("%d resets refused, want %d", n, waiting+1)
	}
}

// The load a session is refused at: the tasks runnable per CPU in
// /proc/loadavg's fourth field, the reader not counted.
func TestParseRunnable(t *testing.T) {
	for _, c := range []struct {
		in   string
		cpus int
		want float64
	}{
		{"0.52 0.58 0.59 1/467 12345", 2, 0},
		{"0.52 0.58 0.59 5/467 12345", 2, 2},
		{"7.1 6.0 5.2 9/900 1", 4, 2},
		{"garbage", 2, 0},
	} {
		if got := parseRunnable(c.in, c.cpus); got != c.want {
			t.Errorf("parseRunnable(%q, %d) = %v, want %v", c.in, c.cpus, got, c.want)
		}
	}
}
