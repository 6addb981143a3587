package openenv

import "testing"

// The address a server prints for its WebSocket names the same server as
// its http base; both forms, with or without a trailing slash, work.
func TestServerBaseForms(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":    "http://127.0.0.1:8000",
		"http://127.0.0.1:8000/":   "http://127.0.0.1:8000",
		"127.0.0.1:8000":           "http://127.0.0.1:8000",
		"ws://127.0.0.1:8000/ws":   "http://127.0.0.1:8000",
		"ws://127.0.0.1:8000/ws/":  "http://127.0.0.1:8000",
		"wss://env.example/api/ws": "https://env.example/api",
		"https://env.example/api/": "https://env.example/api",
		"http://h:1/wsx":           "http://h:1/wsx",
	} {
		got, err := ServerBase(in)
		if err != nil || got != want {
			t.Errorf("ServerBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://h:1", "http://"} {
		if got, err := ServerBase(bad); err == nil {
			t.Errorf("ServerBase(%q) = %q, want an error", bad, got)
		}
	}
}
