//go:build !unix

package workspace

import "os"

// tempOpenFlags open a temporary file for the sweep.
const tempOpenFlags = os.O_RDONLY

// holdTemp has no lock to take here; sweeps rely on the file's age.
func holdTemp(*os.File) {}

// tempHeld cannot tell a live write here; the age guard decides.
func tempHeld(*os.File) bool { return false }
