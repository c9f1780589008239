// Command goreactor is a tiny Go wasip1 reactor for wasmsnap's tests: its
// package init builds state that the snapshot must carry.
package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"
)

var (
	words     map[string]int // built by init
	initRuns  int32
	calls     int32
	preopened bool
	phase     string // WASMSNAP_PHASE as init saw it
)

func init() {
	words = make(map[string]int)
	for i, w := range strings.Fields("alpha beta gamma delta epsilon") {
		words[w] = i + 1
	}
	initRuns++
	phase = os.Getenv("WASMSNAP_PHASE")
	// Touch the WASI preopens during init so their descriptors are captured.
	_, err := os.Stat("/workspace")
	preopened = err == nil
}

func main() {}

// initCount tells how often package init ran in this instance.
//
//go:wasmexport initCount
func initCount() int32 { return initRuns }

// initPhase is the length of WASMSNAP_PHASE when init ran: 8 ("snapshot")
// in a snapshot, 3 ("run") if init ran in the instance itself.
//
//go:wasmexport initPhase
func initPhase() int32 { return int32(len(phase)) }

// phaseNow is the length of WASMSNAP_PHASE read at call time.
//
//go:wasmexport phaseNow
func phaseNow() int32 { return int32(len(os.Getenv("WASMSNAP_PHASE"))) }

// wordSum adds the values of the map built during init.
//
//go:wasmexport wordSum
func wordSum() int32 {
	s := 0
	for _, v := range words {
		s += v
	}
	return int32(s)
}

// bump counts calls in this instance.
//
//go:wasmexport bump
func bump() int32 {
	calls++
	return calls
}

// work allocates and runs n goroutines that each sum a fresh slice.
//
//go:wasmexport work
func work(n int32) int64 {
	var wg sync.WaitGroup
	results := make([]int64, n)
	for g := int32(0); g < n; g++ {
		wg.Add(1)
		go func(g int32) {
			defer wg.Done()
			buf := make([]int64, 100000)
			for i := range buf {
				buf[i] = int64(i) + int64(g)
			}
			var s int64
			for _, v := range buf {
				s += v
			}
			results[g] = s
		}(g)
	}
	wg.Wait()
	var total int64
	for _, r := range results {
		total += r
	}
	return total
}

// sleepMillis sleeps and reports the milliseconds that passed.
//
//go:wasmexport sleepMillis
func sleepMillis(ms int32) int32 {
	start := time.Now()
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return int32(time.Since(start) / time.Millisecond)
}

// writeFile writes a file in /workspace and reports success as 1.
//
//go:wasmexport writeFile
func writeFile() int32 {
	if !preopened {
		return -1
	}
	if err := os.WriteFile("/workspace/snap.txt", []byte("hello"), 0o644); err != nil {
		return 0
	}
	b, err := os.ReadFile("/workspace/snap.txt")
	if err != nil || string(b) != "hello" {
		return 0
	}
	return 1
}

// mathRand returns a number from math/rand/v2's global source, whose seed
// the runtime draws during init.
//
//go:wasmexport mathRand
func mathRand() int64 { return rand.Int64() }

// cryptoRand returns a number read from the WASI random source now.
//
//go:wasmexport cryptoRand
func cryptoRand() int64 {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return -1
	}
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}
