package chromium

import (
	"slices"
	"strings"
	"testing"
)

// Host rules map a host (any port, or the rule's port) to an address,
// keeping the request's port when the address names none; what no rule
// maps stays unmapped, and only MAP rules are taken.
func TestHostRules(t *testing.T) {
	r, err := ParseHostRules(" MAP shop.waymark.test 127.0.0.1:4000, MAP *.mail.test:8080 10.0.0.2 ,MAP V6.test [::1]")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"shop.waymark.test:80", "127.0.0.1:4000"},
		{"SHOP.waymark.test:443", "127.0.0.1:4000"},
		{"a.mail.test:8080", "10.0.0.2:8080"},
		{"a.mail.test:80", ""},
		{"v6.test:81", "[::1]:81"},
		{"other.test:80", ""},
		{"no-port", ""},
	} {
		got, ok := r.MapAddr(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("MapAddr(%q) = %q %v, want %q", c.in, got, ok, c.want)
		}
	}
	if h := r.Hosts(); !slices.Equal(h, []string{"shop.waymark.test", "*.mail.test", "v6.test"}) {
		t.Errorf("Hosts() = %q", h)
	}
	if r, err := ParseHostRules(" , "); r != nil || err != nil {
		t.Errorf("empty rules: %v %v, want nil nil", r, err)
	}
	for _, bad := range []string{"EXCLUDE shop.waymark.test", "MAP shop.waymark.test", "MAP shop.waymark.test ~NOTFOUND"} {
		if _, err := ParseHostRules(bad); err == nil || !strings.Contains(err.Error(), "MAP host address[:port]") {
			t.Errorf("%q: %v, want an error that shows the form", bad, err)
		}
	}
}
