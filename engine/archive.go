package engine

import (
	"hash/fnv"

	"waymark/engine/har"
)

// A recorded episode is its own offline site: while it records, an engine
// that captures traffic (Settings.HAR) keeps every response of every target
// of the episode — documents, scripts, styles, images, fonts, XHR and
// fetch, frames', workers' and service workers' requests, redirects — with
// its body, and its WebSocket conversations (har.Capture.Archive and
// Bodies). A replay given the recording's Archive (ResetOptions.Archive)
// is served from it inside the browser, never from the network: a request
// the archive cannot answer is refused (the page sees a network error)
// unless ResetOptions.ArchiveFallback lets it through.

// Archive answers the requests of a replayed episode from its recording.
// The store implements it; the engine asks it for every request the
// replayed pages make. Its methods may be called from several goroutines.
type Archive interface {
	// Answer returns the recorded response to req, or ok false and why
	// the archive has none (nothing recorded for it, its body was not
	// kept, the recording ended before it was answered).
	Answer(req ArchiveRequest) (resp ArchiveResponse, ok bool)
	// Sockets are the recorded WebSocket conversations, in the order they
	// were opened.
	Sockets() []har.Entry
	// NotHermetic notes what a replayed step did that the recording cannot
	// answer and that is no request (a socket whose page sent other
	// messages than it recorded, a WebRTC connection).
	NotHermetic(step int, why string)
}

// ArchiveRequest is one request of a replayed page.
type ArchiveRequest struct {
	// Step is the engine's step during which it started (0: the reset).
	Step   int
	Method string
	URL    string
	// Body is the request's body (a POST's form or JSON), nil when none.
	Body []byte
	// ResourceType is Chromium's (document, script, image, xhr, fetch, …).
	ResourceType string
}

// ArchiveResponse is a recorded response.
type ArchiveResponse struct {
	Status     int
	StatusText string
	Headers    []har.NameValue
	Body       []byte
	// Fail is the network error the recorded request failed with
	// (net::ERR_…); the replayed request fails the same way.
	Fail string
	// Why says how the response was chosen (for the fidelity report):
	// which rule matched and which of the recorded answers it is.
	Why string
}

// EpisodeSeed is the seed an episode's page random numbers are drawn from
// when no ResetOptions.Seed is given: made from the episode's id, so an
// episode recording its archive and its replays (whose reset gives the
// recorded episode's seed) draw the same numbers.
func EpisodeSeed(episodeID string) int64 {
	h := fnv.New64a()
	h.Write([]byte(episodeID))
	return int64(h.Sum64() >> 1)
}
