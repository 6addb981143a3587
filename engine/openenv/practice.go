package openenv

import (
	"fmt"
	"net/url"
	"strings"

	"waymark/engine/action"
)

// practiceHint adds, to a page's unresolved host name that is one of the
// built-in practice sites (*.waymark.test), that this OpenEnv server
// serves them only with --task-pack. The server says it in the
// observation, so every client reads it; Waymark's client adds it too for
// servers that do not (it is added once).
func practiceHint(pageURL string, code action.Code) action.Code {
	if !strings.Contains(string(code), "ERR_NAME_NOT_RESOLVED") || strings.Contains(string(code), "--task-pack") {
		return code
	}
	u, err := url.Parse(pageURL)
	if err != nil || !strings.HasSuffix(strings.ToLower(u.Hostname()), ".waymark.test") {
		return code
	}
	return action.Code(fmt.Sprintf("%s: %s is a built-in practice site, and this OpenEnv server does not serve them; start it with 'waymark serve --task-pack' (or choose a task whose page is on the web)",
		code, u.Hostname()))
}

// explainPractice is practiceHint when the server does not serve the
// practice sites (a *.waymark.test name it does serve resolves).
func (s *Server) explainPractice(pageURL string, code action.Code) action.Code {
	if s.opts.ServesPractice {
		return code
	}
	return practiceHint(pageURL, code)
}
