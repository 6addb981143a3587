package openenv

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
)

// A reset's agent name is bounded as a step's metadata.agent is (64 KiB):
// a 1 MiB name is refused with a message that says the limit, and no
// episode is started under it (before, it became the episode's annotator);
// a name of exactly 64 KiB is taken. The reset's metadata (the task's facts,
// the annotator) is bounded the same way.
func TestResetBoundsTheAgentName(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil),
		WrapEpisode: func(base engine.Engine, ep EpisodeStart) (engine.Engine, error) {
			mu.Lock()
			agents = append(agents, ep.Agent)
			mu.Unlock()
			return base, nil
		}})
	r := dialRaw(t, hs)
	reset := func(extra string) []byte {
		return r.call(`{"type":"reset","data":{"start_url":"https://example.com/"` + extra + `}}`)
	}
	code, msg := errCode(t, reset(`,"agent":"`+strings.Repeat("a", 1<<20)+`"`))
	if code != CodeExecution || !strings.Contains(msg, "agent is 1048576 bytes long") || !strings.Contains(msg, "65536 bytes (64 KiB)") || len(msg) > 400 {
		t.Errorf("a 1 MiB agent name: %s %.400q", code, msg)
	}
	code, msg = errCode(t, reset(`,"metadata":{"annotator":"`+strings.Repeat("b", 1<<20)+`"}`))
	if code != CodeExecution || !strings.Contains(msg, "metadata is 1048") || !strings.Contains(msg, "65536 bytes (64 KiB)") || len(msg) > 400 {
		t.Errorf("a 1 MiB metadata: %s %.400q", code, msg)
	}
	mu.Lock()
	if len(agents) != 0 {
		t.Errorf("%d episodes were started with the refused resets", len(agents))
	}
	mu.Unlock()
	name := strings.Repeat("c", MaxMetadataBytes)
	if code, msg := errCode(t, reset(`,"agent":"`+name+`"`)); code != "" {
		t.Errorf("a 64 KiB agent name: %s %.200q", code, msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 || agents[0] != name {
		t.Errorf("episodes started for agents of %d names, want the 64 KiB one", len(agents))
	}
}

// A binary frame ends the session, and both the error frame before the
// close and the close itself say why: status 1003 (unsupported data, as
// RFC 6455 names a text-only endpoint's answer to binary) with the reason.
// Before, the close was a normal closure (1000) without a reason.
func TestBinaryFrameCloseSaysWhy(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	r := dialRaw(t, hs)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.c.Write(ctx, websocket.MessageBinary, []byte(`{"type":"state"}`)); err != nil {
		t.Fatal(err)
	}
	data, err := r.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := errCode(t, data); code != CodeSessionError || !strings.Contains(msg, "binary frames are not supported") {
		t.Errorf("the frame before the close: %s", data)
	}
	_, err = r.recv(10 * time.Second)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusUnsupportedData || !strings.Contains(ce.Reason, "binary frames are not supported") {
		t.Errorf("the close: %v, want status 1003 and the reason", err)
	}
}
