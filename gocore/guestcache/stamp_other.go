//go:build !linux

package guestcache

import (
	"io/fs"
	"time"
)

// fileStamp is not available here: every load reads and digests the
// artifact (stamp_linux.go says what a stamp is).
func fileStamp(fs.FileInfo) (string, time.Time, bool) { return "", time.Time{}, false }
