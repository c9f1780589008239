//go:build !linux

package host

// changedPages cannot ask the kernel which pages of a guest memory changed
// on this system, so instances are never reset here: each run gets a fresh
// one (reset.go).
func changedPages(mem []byte, max int) ([]span, bool) { return nil, false }

// dropImagePages does nothing here: which pages are mapped from the image
// is not known (the spare keeps them until it is released).
func dropImagePages(mem []byte) {}
