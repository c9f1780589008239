package host

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks of snapshots (the targets are measured through Python by
// bench/bench_durable.py; these isolate the Go side):
// go test ./gocore/host -run '^$' -bench Snapshot

// fillFiles writes n files of size bytes under workspace/: text-like
// data (words from a small vocabulary), or random bytes.
func fillFiles(b *testing.B, sb *Sandbox, n, size int, random bool) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "delta", "sandbox", "tool", "call", "journal", "42", "\n"}
	for i := 0; i < n; i++ {
		data := make([]byte, 0, size)
		if random {
			data = data[:size]
			rng.Read(data)
		} else {
			for len(data) < size {
				data = append(data, words[rng.Intn(len(words))]...)
				data = append(data, ' ')
			}
			data = data[:size]
		}
		p := filepath.Join(sb.Root(), "workspace", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSnapshotRestore(b *testing.B, random, compress bool) {
	sb, err := NewSandbox(testGuest, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	fillFiles(b, sb, 1000, 50<<10, random)
	b.ResetTimer()
	var size int
	for i := 0; i < b.N; i++ {
		// A new sandbox each time, as Sandbox.from_snapshot makes; closing
		// it (removing its files) is not part of the measure.
		b.StopTimer()
		dst, err := NewSandbox(testGuest, Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		data, err := sb.Snapshot(SnapshotOptions{Compress: compress})
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
		if err := dst.Restore(data); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		dst.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(size)/1e6, "MB/snapshot")
}

func BenchmarkSnapshotRestoreText(b *testing.B)           { benchSnapshotRestore(b, false, false) }
func BenchmarkSnapshotRestoreTextCompressed(b *testing.B) { benchSnapshotRestore(b, false, true) }
func BenchmarkSnapshotRestoreRandom(b *testing.B)         { benchSnapshotRestore(b, true, false) }
func BenchmarkSnapshotRestoreRandomCompressed(b *testing.B) {
	benchSnapshotRestore(b, true, true)
}

func BenchmarkFork(b *testing.B) {
	sb, err := NewSandbox(testGuest, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	fillFiles(b, sb, 5, 1<<10, false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst, err := NewSandbox(testGuest, Config{})
		if err != nil {
			b.Fatal(err)
		}
		if err := sb.CopyTo(dst); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		dst.Close()
		b.StartTimer()
	}
}
