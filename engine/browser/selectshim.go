package browser

import _ "embed"

// selectShimScript replaces Chromium's native <select> popup with an
// in-page list (see selectshim.js): the native popup is a separate widget
// that CDP screenshots and screencast frames do not show on Xvfb, and that
// CDP clicks miss in both display modes. The in-page list is part of the
// page's pixels and takes clicks and keys, identically in both modes.
//
//go:embed selectshim.js
var selectShimScript string

// pageScript runs at the start of every document in every frame of a tab:
// the settle probe's recorder, then the select popup.
var pageScript = settleScript + ";\n" + selectShimScript
