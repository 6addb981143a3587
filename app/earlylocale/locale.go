// Package locale keeps the GUI toolkit quiet about the C locale.
//
// Debian and Ubuntu containers default to LANG=C.UTF-8. The toolkit reads
// the locale when its language package initialises, takes "C" from
// "C.UTF-8" for a language tag, fails to parse it and logs three lines of
// "Fyne error" before any command runs. For "C" and "POSIX" themselves it
// uses English and says nothing.
//
// This package is its own module so that its import path sorts before the
// toolkit's: Go initialises packages in import-path order among those whose
// imports are ready, so its init runs before the toolkit's. It then shows
// the toolkit "C" instead of "C.<charset>" and Restore puts the variable
// back once the program is running, so child processes (the browser, the
// X server) get the environment the user gave.
package locale

import (
	"os"
	"strings"
)

// saved is the variable changed by init, with its value.
var saved struct {
	name, value string
}

func init() {
	// The toolkit's locale library takes the first non-empty of these.
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			saved.name, saved.value = name, v
			os.Setenv(name, "C")
		}
		return
	}
}

// Restore puts back the locale variable init changed, if any. It is safe to
// call more than once.
func Restore() {
	if saved.name != "" {
		os.Setenv(saved.name, saved.value)
		saved.name = ""
	}
}
