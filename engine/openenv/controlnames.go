package openenv

import (
	"context"

	"waymark/engine/openenv/control"
)

// The shared-control client's names as this package had them, for the
// callers not yet moved to engine/openenv/control.
type (
	SessionSummary = control.SessionSummary
	WatchStep      = control.WatchStep
	WatchEvent     = control.WatchEvent
	WatchConn      = control.WatchConn
	WatchFrame     = control.WatchFrame
)

// ListSessions is control.ListSessions.
func ListSessions(ctx context.Context, baseURL string) ([]SessionSummary, error) {
	return control.ListSessions(ctx, baseURL)
}

// Watch is control.Watch.
func Watch(ctx context.Context, baseURL, sessionID string) (*WatchConn, error) {
	return control.Watch(ctx, baseURL, sessionID)
}
