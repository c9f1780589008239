package host

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// mapping returns n pages mapped private and writable: of a file holding
// non-zero bytes (as a snapshot's image is mapped) or anonymous.
func mapping(t *testing.T, n int, file bool) []byte {
	t.Helper()
	size := n * pageSize
	fd, flags := -1, syscall.MAP_PRIVATE
	if file {
		path := filepath.Join(t.TempDir(), "image")
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i%251) + 1
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fd = int(f.Fd())
	} else {
		flags |= syscall.MAP_ANONYMOUS
	}
	mem, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return mem
}

func TestChangedPages(t *testing.T) {
	f := pagemapFile()
	if f == nil {
		t.Skip("/proc/self/pagemap cannot be read here")
	}
	type finder func(mem []byte, max int) ([]span, bool)
	finders := map[string]finder{
		"pagemap read": func(mem []byte, max int) ([]span, bool) { return readPages(f, mem, max) },
		"PAGEMAP_SCAN": func(mem []byte, max int) ([]span, bool) {
			spans, ok, supported := scanPages(f, mem, max)
			if !supported {
				t.Skip("the kernel has no PAGEMAP_SCAN (Linux < 6.7)")
			}
			return spans, ok
		},
		"changedPages": changedPages,
	}
	p := pageSize
	for name, find := range finders {
		t.Run(name, func(t *testing.T) {
			t.Run("file mapping: written pages, not read or untouched ones", func(t *testing.T) {
				mem := mapping(t, 32, true)
				_ = mem[1*p] + mem[20*p+5] // read: still the file's pages
				mem[3*p] = 0
				mem[4*p+100] = 9
				mem[10*p+p-1] = 1
				got, ok := find(mem, len(mem))
				want := []span{{3 * p, 5 * p}, {10 * p, 11 * p}}
				if !ok || !reflect.DeepEqual(got, want) {
					t.Fatalf("got %v (ok %v), want %v", got, ok, want)
				}
			})
			t.Run("anonymous mapping: written pages", func(t *testing.T) {
				mem := mapping(t, 16, false)
				mem[2*p] = 1
				mem[7*p] = 1
				got, ok := find(mem, len(mem))
				if !ok {
					t.Fatal("not ok")
				}
				want := []span{{2 * p, 3 * p}, {7 * p, 8 * p}}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
			t.Run("nothing written: nothing reported", func(t *testing.T) {
				mem := mapping(t, 8, true)
				_ = mem[0] + mem[5*p]
				if got, ok := find(mem, len(mem)); !ok || len(got) != 0 {
					t.Fatalf("got %v (ok %v), want none", got, ok)
				}
			})
			t.Run("more ranges than one call returns", func(t *testing.T) {
				mem := mapping(t, 400, true)
				var want []span
				for i := 0; i < 400; i += 2 {
					mem[i*p] = 0
					want = append(want, span{i * p, (i + 1) * p})
				}
				got, ok := find(mem, len(mem))
				if !ok || !reflect.DeepEqual(got, want) {
					t.Fatalf("got %d spans (ok %v), want the %d written pages", len(got), ok, len(want))
				}
			})
			t.Run("more than max bytes written: not ok", func(t *testing.T) {
				mem := mapping(t, 8, true)
				for i := 0; i < 5; i++ {
					mem[i*p] = 0
				}
				if _, ok := find(mem, 4*p); ok {
					t.Fatal("ok with 5 pages written and a maximum of 4")
				}
				if got, ok := find(mem, 5*p); !ok || !reflect.DeepEqual(got, []span{{0, 5 * p}}) {
					t.Fatalf("with a maximum of 5 pages: %v (ok %v)", got, ok)
				}
			})
		})
	}
}
