package chromium

import (
	"fmt"
	"net"
	"regexp"
	"strings"
)

// HostRules are MAP rules in the syntax of Chromium's
// --host-resolver-rules ("MAP host addr[:port]", separated by commas):
// requests to a matching host (and port, when the rule names one) go to the
// rule's address. The host proxy of a local browser context (hostproxy.go)
// and the engine's relay on a remote browser both read them.
type HostRules struct {
	rules []hostRule
}

// hostRule is one MAP rule.
type hostRule struct {
	pattern *regexp.Regexp // the host, '*' matching any run of characters
	port    string         // "" = any port
	host    string         // the rule's pattern as written
	to      string         // host or host:port (no port: the request's)
}

// ParseHostRules parses rules; nil when they map nothing. Only MAP rules
// are supported.
func ParseHostRules(rules string) (*HostRules, error) {
	r := &HostRules{}
	for _, raw := range strings.Split(strings.TrimSpace(rules), ",") {
		f := strings.Fields(raw)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 || !strings.EqualFold(f[0], "MAP") {
			return nil, fmt.Errorf("host rule %q: only rules of the form \"MAP host address[:port]\" are supported; write each mapping so", strings.TrimSpace(raw))
		}
		host, port := f[1], ""
		if h, p, err := net.SplitHostPort(f[1]); err == nil {
			host, port = h, p
		}
		re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(strings.ToLower(host)), `\*`, ".*") + "$")
		if err != nil || host == "" || f[2] == "~NOTFOUND" {
			return nil, fmt.Errorf("host rule %q cannot be followed: give it a host name and an address (\"MAP host address[:port]\")", strings.TrimSpace(raw))
		}
		r.rules = append(r.rules, hostRule{pattern: re, port: port, host: strings.ToLower(host), to: f[2]})
	}
	if len(r.rules) == 0 {
		return nil, nil
	}
	return r, nil
}

// MapAddr maps host:port to the matching rule's address, keeping the port
// when the rule gives none.
func (r *HostRules) MapAddr(addr string) (string, bool) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false
	}
	host = strings.ToLower(host)
	for _, rule := range r.rules {
		if !rule.pattern.MatchString(host) || (rule.port != "" && rule.port != port) {
			continue
		}
		if _, _, err := net.SplitHostPort(rule.to); err == nil {
			return rule.to, true
		}
		return net.JoinHostPort(strings.Trim(rule.to, "[]"), port), true
	}
	return "", false
}

// Hosts are the rules' host patterns as written (lower case), in order.
func (r *HostRules) Hosts() []string {
	var hs []string
	for _, rule := range r.rules {
		hs = append(hs, rule.host)
	}
	return hs
}
