package action

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// MsgBadURL is the reference's exact message for a refused start URL.
const MsgBadURL = "expected an HTTP(S) URL without credentials"

// ErrBadURL is returned for URLs that are not http/https with a host, or that
// carry a user or password.
var ErrBadURL = errors.New(MsgBadURL)

// CheckURL accepts only http and https URLs with a host and no user or
// password, in valid UTF-8. Loopback hosts are allowed.
func CheckURL(raw string) error {
	if !utf8.ValidString(raw) {
		return ErrBadURL
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return ErrBadURL
	}
	return nil
}

func sortStrings(s []string) { slices.Sort(s) }
