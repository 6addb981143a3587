package app

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"waymark/engine"
	_ "waymark/engine/chromium"           // registers local_process
	_ "waymark/engine/provider/remotecdp" // registers remote_cdp
)

// browserProviderHelp is the --browser-provider flag's help, shared by the
// commands that take it.
const browserProviderHelp = `where browsers come from: a JSON object {name: options} such as ` +
	`'{"remote_cdp":{"endpoints":["http://127.0.0.1:9222"],"lease_ttl":900}}', @FILE holding one, ` +
	`or a browser farm's CDP address (http://host:port or ws://…/devtools/browser/…) for remote_cdp with that endpoint; ` +
	`empty: a local Chromium per session`

// parseBrowserProvider reads a --browser-provider value (see
// browserProviderHelp). Empty gives nil: the local browser as before.
func parseBrowserProvider(v string) (engine.Provider, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	config := []byte(v)
	switch {
	case strings.HasPrefix(v, "@"):
		b, err := os.ReadFile(v[1:])
		if err != nil {
			return nil, fmt.Errorf("cannot read the browser provider file: %v", err)
		}
		config = b
	case hasURLScheme(v, "http", "https", "ws", "wss"):
		config, _ = json.Marshal(map[string]any{engine.TransportRemoteCDP: map[string]any{"endpoints": []string{v}}})
	case !strings.HasPrefix(v, "{"):
		if b, err := os.ReadFile(v); err == nil {
			config = b
		} else {
			return nil, fmt.Errorf("the browser provider %q is neither a JSON object, a readable file nor a CDP address (http://host:port or ws://…); %s",
				v, browserProviderHelp)
		}
	}
	return engine.Providers.New(config)
}

// hasURLScheme reports whether v starts with one of the schemes and "://".
func hasURLScheme(v string, schemes ...string) bool {
	for _, s := range schemes {
		if strings.HasPrefix(strings.ToLower(v), s+"://") {
			return true
		}
	}
	return false
}
