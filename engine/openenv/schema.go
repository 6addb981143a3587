package openenv

import (
	"encoding/json"

	"waymark/engine/action"
)

// The JSON Schemas of /schema, as pydantic 2 emits them for the helium
// browser environment's models: keys of each schema sorted, properties in
// field order.

func intRange(lo, hiExclusive int) json.RawMessage {
	return obj(field{"exclusiveMaximum", hiExclusive}, field{"minimum", lo}, field{"type", "integer"})
}

func nullableInt(title string, hiExclusive int) json.RawMessage {
	return obj(
		field{"anyOf", []json.RawMessage{intRange(0, hiExclusive), obj(field{"type", "null"})}},
		field{"default", nil},
		field{"title", title},
	)
}

func metadataProp(of string) json.RawMessage {
	return obj(
		field{"additionalProperties", true},
		field{"description", "Additional metadata for the " + of},
		field{"title", "Metadata"},
		field{"type", "object"},
	)
}

// actionSchema is BrowserAction's schema (plus the extended fields when the
// server runs the extended set, and the BrowserGym fields with the
// browsergym set).
func actionSchema(set action.Set) json.RawMessage {
	props := []field{
		{"metadata", metadataProp("action")},
		{"op", obj(field{"enum", set.Ops()}, field{"title", "Op"}, field{"type", "string"})},
		{"x", nullableInt("X", action.ViewportWidth)},
		{"y", nullableInt("Y", action.ViewportHeight)},
		{"text", obj(field{"default", ""}, field{"maxLength", action.MaxTextLen}, field{"title", "Text"}, field{"type", "string"})},
		{"dy", obj(field{"default", 0}, field{"maximum", action.MaxScroll}, field{"minimum", -action.MaxScroll},
			field{"title", "Dy"}, field{"type", "integer"})},
	}
	if set == action.SetExtended || set == action.SetBrowserGym {
		props = append(props,
			field{"x2", nullableInt("X2", action.ViewportWidth)},
			field{"y2", nullableInt("Y2", action.ViewportHeight)},
			field{"url", obj(field{"default", ""}, field{"title", "Url"}, field{"type", "string"})},
		)
	}
	if set == action.SetBrowserGym {
		props = append(props,
			field{"values", obj(field{"default", []string{}}, field{"items", obj(field{"type", "string"})}, field{"title", "Values"}, field{"type", "array"})},
			field{"index", nullableInt("Index", 1000)},
		)
	}
	return obj(
		field{"additionalProperties", false},
		field{"properties", obj(props...)},
		field{"required", []string{"op"}},
		field{"title", "BrowserAction"},
		field{"type", "object"},
	)
}

// observationSchema is BrowserObservation's schema. controls and page_text
// are part of the reference model (with defaults) though never sent.
func observationSchema() json.RawMessage {
	props := []field{
		{"done", obj(field{"default", false}, field{"description", "Whether the episode has terminated"},
			field{"title", "Done"}, field{"type", "boolean"})},
		{"reward", obj(
			field{"anyOf", []json.RawMessage{
				obj(field{"type", "boolean"}), obj(field{"type", "integer"}),
				obj(field{"type", "number"}), obj(field{"type", "null"})}},
			field{"default", nil},
			field{"description", "Reward signal from the last action"},
			field{"title", "Reward"})},
		{"metadata", metadataProp("observation")},
		{"screenshot", obj(field{"title", "Screenshot"}, field{"type", "string"})},
		{"url", obj(field{"title", "Url"}, field{"type", "string"})},
		{"error", obj(field{"default", ""}, field{"title", "Error"}, field{"type", "string"})},
		{"controls", obj(field{"items", obj(field{"additionalProperties", true}, field{"type", "object"})},
			field{"title", "Controls"}, field{"type", "array"})},
		{"page_text", obj(field{"default", ""}, field{"title", "Page Text"}, field{"type", "string"})},
	}
	return obj(
		field{"additionalProperties", false},
		field{"properties", obj(props...)},
		field{"required", []string{"screenshot", "url"}},
		field{"title", "BrowserObservation"},
		field{"type", "object"},
	)
}

// stateSchema is openenv-core's base State schema.
func stateSchema() json.RawMessage {
	return obj(
		field{"additionalProperties", true},
		field{"description", "Base class for environment state."},
		field{"properties", obj(
			field{"episode_id", obj(
				field{"anyOf", []json.RawMessage{obj(field{"type", "string"}), obj(field{"type", "null"})}},
				field{"default", nil},
				field{"description", "Unique identifier for the current episode"},
				field{"title", "Episode Id"})},
			field{"step_count", obj(
				field{"default", 0},
				field{"description", "Number of steps taken in the current episode"},
				field{"minimum", 0},
				field{"title", "Step Count"},
				field{"type", "integer"})},
		)},
		field{"title", "State"},
		field{"type", "object"},
	)
}

// openAPI is a compact OpenAPI 3.1 document of the HTTP API, enough for
// `openenv validate` (info.version "1.0.0"; /reset, /step and /state present).
func openAPI(set action.Set) json.RawMessage {
	jsonBody := func(schema json.RawMessage) json.RawMessage {
		return obj(field{"content", obj(field{"application/json", obj(field{"schema", schema})})})
	}
	ref := func(name string) json.RawMessage {
		return obj(field{"$ref", "#/components/schemas/" + name})
	}
	ok := func(desc string, schema json.RawMessage) json.RawMessage {
		resp := []field{{"description", desc}}
		if schema != nil {
			resp = append(resp, field{"content", obj(field{"application/json", obj(field{"schema", schema})})})
		}
		return obj(field{"200", obj(resp...)})
	}
	op := func(tag, summary string, extra ...field) json.RawMessage {
		return obj(append([]field{{"tags", []string{tag}}, {"summary", summary}}, extra...)...)
	}
	stepResp := obj(
		field{"properties", obj(
			field{"observation", ref("BrowserObservation")},
			field{"reward", obj(field{"anyOf", []json.RawMessage{obj(field{"type", "number"}), obj(field{"type", "null"})}}, field{"title", "Reward"})},
			field{"done", obj(field{"default", false}, field{"title", "Done"}, field{"type", "boolean"})},
		)},
		field{"required", []string{"observation"}},
		field{"type", "object"},
	)
	resetReq := obj(
		field{"additionalProperties", true},
		field{"properties", obj(
			field{"seed", obj(field{"anyOf", []json.RawMessage{obj(field{"minimum", 0}, field{"type", "integer"}), obj(field{"type", "null"})}}, field{"title", "Seed"})},
			field{"episode_id", obj(field{"anyOf", []json.RawMessage{obj(field{"maxLength", 255}, field{"type", "string"}), obj(field{"type", "null"})}}, field{"title", "Episode Id"})},
			field{"start_url", obj(field{"title", "Start Url"}, field{"type", "string"})},
		)},
		field{"title", "ResetRequest"},
		field{"type", "object"},
	)
	stepReq := obj(
		field{"additionalProperties", true},
		field{"properties", obj(
			field{"action", ref("BrowserAction")},
			field{"timeout_s", obj(field{"anyOf", []json.RawMessage{obj(field{"exclusiveMinimum", 0}, field{"type", "number"}), obj(field{"type", "null"})}}, field{"title", "Timeout S"})},
			field{"request_id", obj(field{"anyOf", []json.RawMessage{obj(field{"maxLength", 255}, field{"type", "string"}), obj(field{"type", "null"})}}, field{"title", "Request Id"})},
		)},
		field{"required", []string{"action"}},
		field{"title", "StepRequest"},
		field{"type", "object"},
	)
	paths := obj(
		field{"/reset", obj(field{"post", op("Environment Control", "Reset the environment",
			field{"requestBody", jsonBody(resetReq)}, field{"responses", ok("Environment reset successfully", stepResp)})})},
		field{"/step", obj(field{"post", op("Environment Control", "Execute an action in the environment",
			field{"requestBody", jsonBody(stepReq)}, field{"responses", ok("Action executed successfully", stepResp)})})},
		field{"/state", obj(field{"get", op("State Management", "Get current environment state",
			field{"responses", ok("Successful Response", ref("State"))})})},
		field{"/metadata", obj(field{"get", op("Environment Info", "Get environment metadata",
			field{"responses", ok("Successful Response", nil)})})},
		field{"/health", obj(field{"get", op("Health", "Health check",
			field{"responses", ok("Successful Response", nil)})})},
		field{"/schema", obj(field{"get", op("Schema", "Get all JSON schemas",
			field{"responses", ok("Successful Response", nil)})})},
		field{"/mcp", obj(field{"post", op("MCP", "MCP JSON-RPC endpoint",
			field{"responses", ok("JSON-RPC response", nil)})})},
	)
	return obj(
		field{"openapi", "3.1.0"},
		field{"info", obj(field{"title", "OpenEnv Environment HTTP API"}, field{"version", "1.0.0"},
			field{"description", "Waymark's browser environment over the OpenEnv protocol. Sessions use the WebSocket at /ws."})},
		field{"paths", paths},
		field{"components", obj(field{"schemas", obj(
			field{"BrowserAction", actionSchema(set)},
			field{"BrowserObservation", observationSchema()},
			field{"State", stateSchema()},
		)})},
	)
}
