package app

import (
	"os"
)

// What a command writes from recorded data (screenshots, a GIF of them, an
// API catalogue with sample values, a replay's report of the episode's
// pages) is its owner's only, as the store it comes from is: files 0600,
// folders made for it 0700, whatever the umask.

// writeOwnerOnly writes data to path as a file only its owner may read
// (0600); a regular file that was there already is made 0600 too.
func writeOwnerOnly(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	// Only a regular file: -o /dev/stdout must not change the terminal's
	// permissions.
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return err
		}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkdirOwnerOnly makes the folder dir, and the parents it lacks, open to
// its owner only (0700). A folder that exists is left as it is: it may be
// one the user shares on purpose.
func mkdirOwnerOnly(dir string) error {
	return os.MkdirAll(dir, 0o700)
}
