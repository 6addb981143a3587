package ui

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The Settings' "Remote browser" row: episodes run in a Chromium elsewhere
// (a browser farm, or a Chromium started with --remote-debugging-port),
// driven over the Chrome DevTools Protocol, instead of one this machine
// starts. The practice sites still work: the engine relays their requests
// to this machine's practice server, so the remote browser needs no route
// to it.

// remoteBrowserHint is the row's hint.
const remoteBrowserHint = "Run the browser elsewhere: http://host:9222 or ws://…/devtools/browser/…; empty: this machine. From the next episode"

// remoteBrowserEntry is the row's entry, checked as the value is typed.
func remoteBrowserEntry(cur string) *DialogEntry {
	e := NewDialogEntry()
	e.SetText(cur)
	e.SetPlaceHolder("empty: Chromium on this machine")
	e.Validator = validator(checkRemoteBrowser)
	return e
}

// checkRemoteBrowser accepts an empty value or a DevTools address: http(s)
// with a host (the browser's /json/version tells the websocket), or a
// ws(s) URL (a farm's, possibly with a token in its query).
func checkRemoteBrowser(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	bad := err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil
	if bad || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
		return fmt.Errorf("the remote browser must be a Chrome DevTools address such as http://127.0.0.1:9222 (a Chromium started with --remote-debugging-port=9222) or ws://host:port/devtools/browser/…, got %q", raw)
	}
	return nil
}

// checkRemote checks the remote browser and that it does not go with an
// OpenEnv server (which runs its own browsers).
func (s Settings) checkRemote() error {
	r := strings.TrimSpace(s.RemoteBrowser)
	if err := checkRemoteBrowser(r); err != nil {
		return err
	}
	if r != "" && strings.TrimSpace(s.Server) != "" {
		return errors.New("give an OpenEnv server or a remote browser, not both: an OpenEnv server runs its own browsers; clear one of them")
	}
	return nil
}
