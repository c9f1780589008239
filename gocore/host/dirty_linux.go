package host

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Which pages of a guest memory a run may have changed, as the kernel
// knows them (reset.go): the private pages of the mapping. A page still
// mapped from the snapshot's image (a file page), the shared zero page, or
// a page not mapped at all holds what a fresh instance would read there; a
// private page, resident or swapped out, may hold anything.
//
// Linux 6.7 and later answer in one call that returns ranges (the
// PAGEMAP_SCAN ioctl of /proc/self/pagemap); older kernels give one 64-bit
// entry per page when /proc/self/pagemap is read.

var (
	pagemapOnce sync.Once
	pagemap     *os.File
	pageSize    = os.Getpagesize()
	// noScan is set once PAGEMAP_SCAN proved missing (an older kernel).
	noScan atomic.Bool
)

func pagemapFile() *os.File {
	pagemapOnce.Do(func() {
		if f, err := os.Open("/proc/self/pagemap"); err == nil {
			pagemap = f
		}
	})
	return pagemap
}

// changedPages returns the page ranges of mem (page-aligned, as linear
// memories are) that may differ from a fresh instance's memory. ok is false
// when the kernel cannot tell, or when they add up to more than max bytes.
func changedPages(mem []byte, max int) (spans []span, ok bool) {
	f := pagemapFile()
	if f == nil || len(mem) == 0 || uintptr(unsafe.Pointer(&mem[0]))%uintptr(pageSize) != 0 {
		return nil, false
	}
	if !noScan.Load() {
		spans, ok, supported := scanPages(f, mem, max)
		if supported {
			return spans, ok
		}
		noScan.Store(true)
	}
	return readPages(f, mem, max)
}

// The PAGEMAP_SCAN interface (include/uapi/linux/fs.h, Linux 6.7).
const (
	pageIsFile    = 1 << 2
	pageIsPresent = 1 << 3
	pageIsSwapped = 1 << 4
	pageIsPFNZero = 1 << 5
	// _IOWR('f', 16, struct pm_scan_arg), the struct being 96 bytes.
	pagemapScan = 3<<30 | 96<<16 | 'f'<<8 | 16
)

type pmScanArg struct {
	size, flags                  uint64
	start, end, walkEnd          uint64
	vec, vecLen, maxPages        uint64
	inverted, mask, anyof, rmask uint64
}

type pageRegion struct{ start, end, categories uint64 }

// The ioctl's argument and the buffer it fills are package variables, used
// under scanBufMu: the kernel gets their addresses as numbers, and a
// goroutine's stack (where locals would live) may move between two calls.
var (
	scanBufMu   sync.Mutex
	scanArg     pmScanArg
	scanRegions [64]pageRegion
)

// scanPages asks with PAGEMAP_SCAN for the pages that are private and
// either present (not the zero page) or swapped out. supported is false
// when the kernel does not know the ioctl (or refuses it).
func scanPages(f *os.File, mem []byte, max int) (spans []span, ok, supported bool) {
	return scanCategories(f, mem, max, pmScanArg{
		// not a file page and not the zero page ...
		inverted: pageIsFile | pageIsPFNZero,
		mask:     pageIsFile | pageIsPFNZero,
		// ... and present or swapped out.
		anyof: pageIsPresent | pageIsSwapped,
	})
}

// scanCategories walks mem with PAGEMAP_SCAN for the pages matching the
// category fields of want (inverted, mask, anyof), returning their ranges.
// ok is false when the answer cannot be trusted or the ranges add up to
// more than max bytes; supported is false when the kernel does not know
// the ioctl (or refuses it).
func scanCategories(f *os.File, mem []byte, max int, want pmScanArg) (spans []span, ok, supported bool) {
	scanBufMu.Lock()
	defer scanBufMu.Unlock()
	fd := f.Fd()
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	regions := &scanRegions
	arg := &scanArg
	*arg = pmScanArg{
		size:     uint64(unsafe.Sizeof(pmScanArg{})),
		start:    base,
		end:      base + uint64(len(mem)),
		vec:      uint64(uintptr(unsafe.Pointer(&regions[0]))),
		inverted: want.inverted,
		mask:     want.mask,
		anyof:    want.anyof,
	}
	total := 0
	for arg.start < arg.end {
		arg.vecLen = uint64(len(regions))
		n, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, pagemapScan, uintptr(unsafe.Pointer(arg)))
		if errno != 0 {
			switch errno {
			case syscall.ENOTTY, syscall.EINVAL, syscall.EOPNOTSUPP, syscall.EPERM, syscall.EACCES, syscall.ENOSYS:
				// An older kernel, another architecture's ioctl number,
				// or a filter: reading the entries may still work.
				return nil, false, false
			}
			return nil, false, true
		}
		for _, r := range regions[:n] {
			sp := span{int(r.start - base), int(r.end - base)}
			total += sp.end - sp.off
			if total > max {
				return nil, false, true
			}
			spans = append(spans, sp)
		}
		if arg.walkEnd <= arg.start {
			return nil, false, true // no progress: do not trust the answer
		}
		arg.start = arg.walkEnd
	}
	return spans, true, true
}

// The entry /proc/self/pagemap gives for each page (Documentation/admin-
// guide/mm/pagemap.rst).
const (
	pmPresent = 1 << 63
	pmSwapped = 1 << 62
	pmFile    = 1 << 61 // a file page or shared anonymous memory
)

// readPages reads one pagemap entry per page of mem. The zero page reads
// as private here; copying it back is harmless.
func readPages(f *os.File, mem []byte, max int) (spans []span, ok bool) {
	base := uintptr(unsafe.Pointer(&mem[0]))
	pages := len(mem) / pageSize
	buf := make([]byte, 8*min(pages, 4096))
	total := 0
	for first := 0; first < pages; {
		n := min(pages-first, len(buf)/8)
		off := int64(base/uintptr(pageSize)+uintptr(first)) * 8
		if _, err := f.ReadAt(buf[:8*n], off); err != nil {
			return nil, false
		}
		for i := 0; i < n; i++ {
			e := *(*uint64)(unsafe.Pointer(&buf[8*i]))
			if e&pmFile != 0 || e&(pmPresent|pmSwapped) == 0 {
				continue
			}
			at := (first + i) * pageSize
			total += pageSize
			if total > max {
				return nil, false
			}
			if k := len(spans) - 1; k >= 0 && spans[k].end == at {
				spans[k].end += pageSize
			} else {
				spans = append(spans, span{at, at + pageSize})
			}
		}
		first += n
	}
	return spans, true
}

// mappedImagePages returns the page ranges of mem that are mapped from the
// snapshot's image file and present: pages a run read (or the kernel mapped
// around a page it read) but never wrote.
func mappedImagePages(mem []byte) (spans []span, ok bool) {
	f := pagemapFile()
	if f == nil || len(mem) == 0 || uintptr(unsafe.Pointer(&mem[0]))%uintptr(pageSize) != 0 || noScan.Load() {
		return nil, false
	}
	spans, ok, _ = scanCategories(f, mem, len(mem), pmScanArg{mask: pageIsFile | pageIsPresent})
	return spans, ok
}

// dropImagePages unmaps the pages of mem still mapped from the image file,
// so they no longer count as the process's resident memory; reading one
// again maps it again from the page cache.
func dropImagePages(mem []byte) {
	spans, ok := mappedImagePages(mem)
	if !ok {
		return
	}
	for _, sp := range spans {
		_ = syscall.Madvise(mem[sp.off:sp.end], syscall.MADV_DONTNEED)
	}
}
