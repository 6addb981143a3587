package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// echoProvider is a provider for the registry tests: it hands out handles
// that carry its options.
type echoProvider struct{ opts string }

func (p echoProvider) Acquire(ctx context.Context, s Spec) (Handle, error) {
	return Handle{SessionID: p.opts, OwnerPID: os.Getpid()}, nil
}

func (p echoProvider) Release(ctx context.Context, h Handle) error { return h.CheckOwner() }

func TestRegistry(t *testing.T) {
	r := &Registry{}
	for _, n := range []string{"zeta", "alpha"} {
		r.Register(n, func(raw json.RawMessage) (Provider, error) {
			if string(raw) == `{"bad":1}` {
				return nil, errors.New("bad is not an option")
			}
			return echoProvider{opts: string(raw)}, nil
		})
	}
	if got := fmt.Sprint(r.Names()); got != "[alpha zeta]" {
		t.Fatalf("names %s", got)
	}
	p, err := r.New([]byte(` {"zeta": {"endpoints": ["x"]}} `))
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := p.Acquire(context.Background(), Spec{}); h.SessionID != `{"endpoints": ["x"]}` {
		t.Errorf("the factory got %q", h.SessionID)
	}
	for config, want := range map[string]string{
		`{}`:                       "must name exactly one provider, got 0 (); use one of: alpha, zeta",
		`{"alpha":{},"zeta":{}}`:   "must name exactly one provider, got 2 (alpha, zeta); use one of: alpha, zeta",
		`{"remote":{}}`:            `unknown browser provider "remote"; use one of: alpha, zeta`,
		`["alpha"]`:                "must be a JSON object {name: options} with one of: alpha, zeta",
		`null`:                     "must be a JSON object {name: options} with one of: alpha, zeta (it is null)",
		``:                         "must be a JSON object {name: options} with one of: alpha, zeta",
		`{"alpha":{}} {"zeta":{}}`: "has text after its JSON object",
		`{"alpha":{"bad":1}}`:      "browser provider alpha: bad is not an option",
	} {
		_, err := r.New([]byte(config))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", config, err, want)
		}
	}
}

func TestSpecTTL(t *testing.T) {
	if got := (Spec{}).TTL(); got != 900*time.Second {
		t.Errorf("default TTL %v", got)
	}
	if got := (Spec{LeaseTTL: time.Minute}).TTL(); got != time.Minute {
		t.Errorf("TTL %v", got)
	}
}

// TestForkRule hands a handle to a child process: the child must refuse it.
func TestForkRule(t *testing.T) {
	if raw := os.Getenv("WAYMARK_TEST_HANDLE"); raw != "" {
		var h Handle
		if err := json.Unmarshal([]byte(raw), &h); err != nil {
			fmt.Println("bad handle:", err)
			os.Exit(3)
		}
		err := h.CheckOwner()
		fmt.Printf("pid %d: %v\n", os.Getpid(), err)
		if errors.Is(err, ErrNotOwner) {
			os.Exit(0)
		}
		os.Exit(4)
	}
	h, err := echoProvider{opts: "s-1"}.Acquire(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.CheckOwner(); err != nil {
		t.Fatalf("the owner is refused: %v", err)
	}
	raw, _ := json.Marshal(h)
	cmd := exec.Command(os.Args[0], "-test.run=^TestForkRule$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WAYMARK_TEST_HANDLE="+string(raw))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child accepted the handle or failed: %v\n%s", err, out)
	}
	want := fmt.Sprintf("session s-1 was acquired by process %d and cannot be used in process", os.Getpid())
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "acquire a new session in this process") {
		t.Fatalf("child said %q", out)
	}
}
