package guestcache

import (
	"fmt"
	"io/fs"
	"syscall"
	"time"
)

// fileStamp identifies a file's content as of now without reading it: its
// device, inode, size and change time, and returns the change time too.
// Any write, truncate or chmod moves the change time, which only the
// kernel sets (to a clock of a few milliseconds' grain: see stampable).
func fileStamp(info fs.FileInfo) (string, time.Time, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	changed := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	return fmt.Sprintf("%d:%d:%d:%d", st.Dev, st.Ino, st.Size, changed.UnixNano()), changed, true
}
