// Package wire is the message form both of Waymark's sockets share: the
// OpenEnv protocol's /ws (engine/openenv) and shared control's watch socket
// (engine/openenv/control). It holds the frame {"type":…,"data":…}, the
// error frame and its codes (Code), pydantic-shaped validation errors, JSON
// written and read as OpenEnv's Python server does (compact, keys in the
// given order, no HTML escaping; the json module's decode errors), the
// frame size limits, the forms of a server's address, and a client's
// reading of an error frame (ServerError).
//
// It knows no protocol: which messages exist and what they do is the
// business of the two packages above it.
package wire
