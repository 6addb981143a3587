package remotecdp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Options configure the remote_cdp provider (its JSON options).
type Options struct {
	// Endpoints are ws://host:port/devtools/browser/… URLs, or
	// http://host:port addresses resolved through /json/version.
	Endpoints []string `json:"endpoints"`
	// MaxPerEndpoint caps the sessions on one endpoint (0: no cap).
	MaxPerEndpoint int `json:"max_per_endpoint"`
	// ConnectTimeout bounds resolving and dialing an endpoint (default 10 s).
	ConnectTimeout Duration `json:"connect_timeout"`
	// LeaseTTL is the lease of a Spec that gives none (default 900 s).
	LeaseTTL Duration `json:"lease_ttl"`
	// Query holds extra URL parameters for the endpoint (e.g. a farm's
	// token and timeout), as an object or as "a=1&b=2".
	Query Query `json:"query"`
	// DownFor is how long an endpoint that failed is skipped (default 30 s).
	DownFor Duration `json:"down_for"`
}

// Duration reads a number of seconds or a Go duration string ("90s").
type Duration time.Duration

// UnmarshalJSON accepts 30, 2.5 or "1m30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*d = Duration(f * float64(time.Second))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a number of seconds or a string like \"90s\", not %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("a duration is a number of seconds or a string like \"90s\": %v", err)
	}
	*d = Duration(v)
	return nil
}

// Query is extra URL parameters.
type Query url.Values

// UnmarshalJSON accepts {"token":"x","timeout":60000} or "token=x&timeout=60000".
func (q *Query) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := url.ParseQuery(strings.TrimPrefix(s, "?"))
		if err != nil {
			return fmt.Errorf("query %q: %v", s, err)
		}
		*q = Query(v)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("query must be an object of parameters or a string like \"token=x\", not %s", b)
	}
	v := url.Values{}
	for k, x := range m {
		switch x := x.(type) {
		case string:
			v.Set(k, x)
		default:
			j, _ := json.Marshal(x)
			v.Set(k, string(j))
		}
	}
	*q = Query(v)
	return nil
}
