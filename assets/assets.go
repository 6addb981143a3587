// Package assets holds the files Waymark embeds in its binary: the
// application icon here, and the built-in practice sites and task pack in
// the practice subpackage.
package assets

import _ "embed"

// Icon is Waymark's application icon: a 512×512 PNG (a white map pin holding
// a cairn, on a teal rounded square). Regenerate it with
// `go run ./assets/internal/genicon`.
//
//go:embed icon.png
var Icon []byte
