package hostcall

import (
	"io"
	"os"
	"strings"

	"amlasandbox/gocore/wire"
)

// ReadToolInfo reads the info file of a tool (wire.ToolInfo.Info): in the
// guest through the host's tool directory's descriptor, elsewhere (tests)
// as an ordinary file.
func ReadToolInfo(path string) ([]byte, error) {
	if rel, ok := strings.CutPrefix(path, wire.ToolInfoMount+"/"); ok && available {
		fd, errno := openMounted(wire.ToolInfoFD, rel)
		if errno == 0 {
			f := os.NewFile(uintptr(fd), path)
			defer f.Close()
			return io.ReadAll(f)
		}
	}
	return os.ReadFile(path)
}
