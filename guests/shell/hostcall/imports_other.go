//go:build !wasip1

package hostcall

const available = false

func exitStatus(int) {}

func inputLen() int           { return 0 }
func inputRead([]byte)        {}
func toolWait(int64) int      { return 0 }
func sleepMS(int64)           {}
func diskReserve(int64) bool  { return true }
func spawn([]byte) int        { return 0 }
func spawnTake([]byte)        {}
func toolTake([]byte)         {}
func output(int, []byte)      {}
func toolSubmit([]byte) int64 { return 0 }

func openMounted(int32, string) (int32, int32) { return 0, 8 } // EBADF: nothing is mounted
