package action

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: any bytes, both action sets. An accepted action is within the
// documented limits, validates again and survives a JSON round trip; a
// refused one gets a ValidationError whose errors say something and can be
// sent as JSON (the OpenEnv VALIDATION_ERROR reply). Seeds: below and
// testdata/fuzz/FuzzParse/.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"op":"click","x":312,"y":188}`, `{"op":"type","text":"red shoes"}`, `{"op":"key","text":"ENTER"}`,
		`{"op":"scroll","dy":300}`, `{"op":"back"}`, `{"op":"wait"}`, `{"op":"finish","text":"42"}`,
		`{"metadata":{"agent":"a","n":[1,2.5,null]},"op":"click","x":0,"y":599,"text":"","dy":0}`,
		`{"op":"goto","url":"https://example.org/a?b=c"}`, `{"op":"drag","x":1,"y":2,"x2":3,"y2":4}`,
		`{"op":"double_click","x":"5","y":true}`, `{"op":"move","x":5.0,"y":null}`,
		`{"op":"click","x":1e30,"y":-1e30}`, `{"op":"scroll","dy":1e400}`, `{"op":"click","x":1,"y":2}{"op":"finish"}`,
		"{\"op\":\"type\",\"text\":\"caf\xe9\"}", `{"op":"type","text":"\u0000\ud800"}`, `[]`, `null`, `"click"`, `{"op":"nope","zz":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, set := range []Set{SetDefault, SetExtended} {
			a, err := Parse(data, set)
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) || len(ve.Errors) == 0 || err.Error() == "" {
					t.Fatalf("%s: not a ValidationError with errors: %#v", set, err)
				}
				for _, fe := range ve.Errors {
					if fe.Type == "" || fe.Msg == "" || fe.Loc == nil {
						t.Fatalf("%s: empty field error %+v", set, fe)
					}
				}
				b, err := json.Marshal(ve.Errors)
				if err != nil {
					t.Fatalf("%s: the errors cannot be sent as JSON: %v", set, err)
				}
				var back []map[string]any
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatalf("%s: the errors cannot be read back: %v", set, err)
				}
				continue
			}
			if !set.HasOp(a.Op) {
				t.Fatalf("%s: accepted op %q", set, a.Op)
			}
			for _, p := range []*int{a.X, a.X2} {
				if p != nil && (*p < 0 || *p >= ViewportWidth) {
					t.Fatalf("%s: x %d accepted", set, *p)
				}
			}
			for _, p := range []*int{a.Y, a.Y2} {
				if p != nil && (*p < 0 || *p >= ViewportHeight) {
					t.Fatalf("%s: y %d accepted", set, *p)
				}
			}
			if a.DY < -MaxScroll || a.DY > MaxScroll {
				t.Fatalf("%s: dy %d accepted", set, a.DY)
			}
			if !utf8.ValidString(a.Text) || utf8.RuneCountInString(a.Text) > MaxTextLen || !utf8.ValidString(a.URL) {
				t.Fatalf("%s: text %q url %q accepted", set, a.Text, a.URL)
			}
			if a.Op == Goto && CheckURL(a.URL) != nil {
				t.Fatalf("%s: goto %q accepted", set, a.URL)
			}
			if err := a.Validate(set); err != nil {
				t.Fatalf("%s: %s parsed but does not validate: %v", set, data, err)
			}
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatalf("%s: marshal: %v", set, err)
			}
			a2, err := Parse(b, set)
			if err != nil {
				t.Fatalf("%s: %s does not parse back: %v", set, b, err)
			}
			if b2, _ := json.Marshal(a2); string(b2) != string(b) {
				t.Fatalf("%s: round trip changed the action:\n%s\n%s", set, b, b2)
			}
		}
	})
}

// FuzzCheckURL: an accepted URL is http(s) with a host and no credentials,
// valid UTF-8, and parses to the same thing again.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://example.org/", "http://127.0.0.1:8080/a?b#c", " http://a.test ", "ftp://x/", "http://user:pw@a.test/",
		"http:///path", "javascript:alert(1)", "http://[::1]:80/", "http://a.test\x00/", "http://caf\xe9.test/", "HTTP://A.TEST",
		"http://%41.test/", "//a.test/", "http://a.test:99999/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckURL(raw) != nil {
			return
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			t.Fatalf("%q accepted: %v %+v", raw, err, u)
		}
		if !utf8.ValidString(raw) {
			t.Fatalf("%q accepted although it is not UTF-8", raw)
		}
		if CheckURL(u.String()) != nil {
			t.Fatalf("%q accepted but its normal form %q is not", raw, u.String())
		}
	})
}
