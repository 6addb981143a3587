package browser

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"waymark/engine"
)

// Chromium sends a response's ExtraInfo event (the raw headers, with
// Set-Cookie) on a path of its own: on a busy machine it can come after
// loadingFinished. The entry must wait for it, not be written without the
// cookies; and the last take of the episode must still hand over an entry
// whose ExtraInfo never came.
func TestExtraInfoAfterLoadingFinished(t *testing.T) {
	set := engine.DefaultSettings()
	set.HAR = true
	tb := &tab{}
	request := func(c *netCapture, id network.RequestID) {
		c.observe(tb, &network.EventRequestWillBeSent{RequestID: id, Timestamp: cdp.MonotonicTime(1), Type: network.ResourceTypeFetch,
			Request: &network.Request{URL: "http://127.0.0.1/api/login", Method: "POST", Headers: network.Headers{}}})
		c.observe(tb, &network.EventResponseReceived{RequestID: id, Type: network.ResourceTypeFetch, HasExtraInfo: true,
			Response: &network.Response{URL: "http://127.0.0.1/api/login", Status: 204, MimeType: "text/plain",
				Headers: network.Headers{"Content-Length": "0"}}})
		c.observe(tb, &network.EventLoadingFinished{RequestID: id, Timestamp: cdp.MonotonicTime(1.5)})
	}
	extra := func(c *netCapture, id network.RequestID) {
		c.observe(tb, &network.EventResponseReceivedExtraInfo{RequestID: id, StatusCode: 204,
			Headers: network.Headers{"Set-Cookie": "sid=cookie-val; Path=/", "Content-Length": "0"}})
	}

	t.Run("late ExtraInfo", func(t *testing.T) {
		c := newCapture(set)
		request(c, "1")
		if got := c.take(false); len(got.Entries) != 0 {
			t.Errorf("an entry was handed over before its ExtraInfo came: %+v", got.Entries[0].Response)
		}
		extra(c, "1")
		got := c.take(true)
		if len(got.Entries) != 1 {
			t.Fatalf("%d entries, want 1", len(got.Entries))
		}
		cs := got.Entries[0].Response.Cookies
		if len(cs) != 1 || cs[0].Name != "sid" || cs[0].Value != "[redacted]" {
			t.Errorf("response cookies = %+v, want sid (redacted) from the late ExtraInfo", cs)
		}
	})

	t.Run("ExtraInfo never comes", func(t *testing.T) {
		c := newCapture(set)
		request(c, "2")
		got := c.take(true)
		if len(got.Entries) != 1 || got.Entries[0].Response.Status != 204 {
			t.Fatalf("entries = %+v, want the request handed over at the end", got.Entries)
		}
	})
}
