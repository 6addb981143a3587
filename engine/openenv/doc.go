// Package openenv speaks the OpenEnv environment protocol: a Server that serves any engine.Engine to
// unmodified OpenEnv Python clients over the /ws WebSocket (plus the HTTP
// endpoints the Python tooling probes), and a Client that is itself an
// engine.Engine driving any OpenEnv browser server.
//
// The wire form follows the Python server byte for byte where it matters:
// compact JSON, keys in model order, the helium browser environment's
// observation keys (screenshot, url, error) and the error codes and messages
// of openenv-core.
//
// Where things are: server.go the Server and its options; session.go a
// WebSocket session's life (the read loop, pings, the end); step.go one
// message of the agent, from its envelope to its reply; reset.go the reset
// kwargs; gym.go the BrowserGym wire (Options.BrowserGym); http.go the
// HTTP endpoints and MCP; schema.go /schema and /openapi.json; guard.go,
// admission.go, idle.go and lease.go the checks and bounds on sessions;
// client.go and clientstep.go the Client. Shared control (GET /sessions,
// the watch socket, take-over) is engine/openenv/control, which this
// package asks for the agent's turn; what both sockets share (the frame,
// the error codes, JSON as Python writes it) is engine/openenv/wire.
package openenv
