package control

import "waymark/engine/openenv/wire"

// End is why a session ended: its watchers' "ended" message says it
// (String, and Reason's Code when it has one), and the server logs it.
type End struct {
	Reason EndReason
	// Detail completes some reasons: what failed (EndConnectionLost,
	// EndLeaseExpired) or the idle bound (EndIdleTimeout); "" for others.
	Detail string
}

// EndReason is why a session ended, as watchers read it.
type EndReason string

// End reasons.
const (
	// EndClientClosed: the agent's socket closed without a close message.
	EndClientClosed EndReason = "client closed the connection"
	// EndCloseMessage: the agent sent {"type":"close"}.
	EndCloseMessage EndReason = "close message"
	// EndDiscarded: the agent closed with the reason "discarded"; its
	// episode is stored as discarded.
	EndDiscarded EndReason = "client discarded the episode"
	// EndConnectionLost: the agent's socket broke (no close frame);
	// Detail is the read error.
	EndConnectionLost EndReason = "connection lost"
	// EndStopped: the server is stopping, or the agent did not answer a
	// ping in time.
	EndStopped EndReason = "server stopping or client not answering pings"
	// EndGoneMidMessage: the agent went away while its message was being
	// handled.
	EndGoneMidMessage EndReason = "client went away during a message"
	// EndReplyFailed: the reply could not be sent.
	EndReplyFailed EndReason = "could not send the reply"
	// EndBinaryFrame: the agent sent a binary frame (answered with
	// SESSION_ERROR).
	EndBinaryFrame EndReason = "binary frame"
	// EndLeaseExpired: the browser's lease ran out (the agent got
	// LEASE_EXPIRED); Detail says why.
	EndLeaseExpired EndReason = "browser lease expired"
	// EndIdleTimeout: no reset or step for the server's idle bound (the
	// agent got IDLE_TIMEOUT); Detail is the bound.
	EndIdleTimeout EndReason = "idle timeout"
)

// Code is the error code the agent got when its session ended so
// (IDLE_TIMEOUT, LEASE_EXPIRED); "" for other ends.
func (r EndReason) Code() wire.Code {
	switch r {
	case EndLeaseExpired:
		return wire.CodeLeaseExpired
	case EndIdleTimeout:
		return wire.CodeIdleTimeout
	}
	return ""
}

// String is the end as watchers read it: the reason, then its detail
// ("browser lease expired: renewal refused"; the idle bound reads "no
// reset or step for 10m0s (idle timeout)").
func (e End) String() string {
	switch {
	case e.Reason == EndIdleTimeout:
		return "no reset or step for " + e.Detail + " (idle timeout)"
	case e.Detail != "":
		return string(e.Reason) + ": " + e.Detail
	}
	return string(e.Reason)
}
