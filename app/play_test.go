package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestPlay(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/next" {
			fmt.Fprint(w, `<title>next</title><body>next page</body>`)
			return
		}
		fmt.Fprint(w, `<title>start</title><body style="margin:0"><a href="/next" style="display:block;width:800px;height:600px">go</a></body>`)
	}))
	defer ts.Close()
	shots := t.TempDir()
	input := strings.Join([]string{
		`{"op":"click","x":400}`,
		``,
		`{"metadata":{},"op":"click","x":400,"y":300,"text":"","dy":0}`,
		`{"op":"finish","text":"done it"}`,
		`{"op":"wait"}`, // after done: never read
	}, "\n")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"play", "--start-url", ts.URL + "/", "--shots", shots, "--display", "headless", "--max-steps", "5"},
		strings.NewReader(input), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout.String())
	}
	var obs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		obs = append(obs, m)
	}
	if obs[0]["step"] != 0.0 || obs[0]["title"] != "start" || obs[0]["done"] != false {
		t.Errorf("reset line %v", obs[0])
	}
	if obs[1]["error"] != "click needs x and y" || obs[1]["line"] != 1.0 {
		t.Errorf("refusal line %v", obs[1])
	}
	if obs[2]["step"] != 1.0 || obs[2]["url"] != ts.URL+"/next" || obs[2]["title"] != "next" {
		t.Errorf("click line %v", obs[2])
	}
	if obs[3]["done"] != true || obs[3]["end_reason"] != "finished" || obs[3]["answer"] != "done it" {
		t.Errorf("finish line %v", obs[3])
	}
	for _, o := range []map[string]any{obs[0], obs[2], obs[3]} {
		p, _ := o["screenshot"].(string)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("screenshot %q: %v", p, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			t.Errorf("screenshot %s: %v %v", p, err, img.Bounds())
		}
		if _, ok := o["ms"].(float64); !ok {
			t.Errorf("no ms in %v", o)
		}
	}
}

func TestPlayUsage(t *testing.T) {
	for _, args := range [][]string{
		{"play"},
		{"play", "--start-url", "ftp://x/"},
		{"play", "--start-url", "http://127.0.0.1/", "--max-steps", "500"},
		{"play", "--start-url", "http://127.0.0.1/", "--display", "wayland"},
		{"play", "--start-url", "http://127.0.0.1/", "--action-set", "huge"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
