package snapshot

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"slices"
	"sort"
	"sync"

	"amlasandbox/gocore/durable"
)

// flateWriters are reused: making one allocates about a megabyte of
// tables.
var flateWriters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return zw
}}

// Digest computes the files digest: the SHA-256 of the entries' records
// in their stored form. Feed it each entry's header (Header), in walk
// order, and a file's contents (Write) after its header.
type Digest struct {
	h   hash.Hash
	buf []byte
}

// NewDigest returns an empty files digest.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

// Header hashes an entry's record up to its data.
func (d *Digest) Header(e *Entry) {
	d.buf = appendEntryHeader(d.buf[:0], e)
	if !e.Dir {
		d.buf = append(d.buf, methodStored)
	}
	d.h.Write(d.buf)
}

// Write hashes bytes of the current file's contents.
func (d *Digest) Write(p []byte) (int, error) { return d.h.Write(p) }

// Sum is the files digest of what was fed.
func (d *Digest) Sum() (out [32]byte) {
	copy(out[:], d.h.Sum(nil))
	return out
}

// appendEntryHeader writes an entry's tag, path, mode, mtime and, for a
// file, its size.
func appendEntryHeader(b []byte, e *Entry) []byte {
	tag := byte(recFile)
	if e.Dir {
		tag = recDir
	}
	b = append(b, tag)
	b = durable.AppendString(b, e.Path)
	b = binary.AppendUvarint(b, uint64(e.Mode))
	b = binary.AppendVarint(b, e.MTime)
	if !e.Dir {
		b = binary.AppendUvarint(b, uint64(e.Size))
	}
	return b
}

// Estimate is about the bytes e takes in a snapshot that stores it as
// it is: what a Writer is sized with.
func Estimate(e *Entry) int { return len(e.Path) + 40 + int(e.Size) }

// Writer writes a snapshot: its entries in walk order (Dir, File), then
// its budgets, then Finish.
type Writer struct {
	out []byte
	// skel MACs every byte but the files' data: the trailer. mark is the
	// first byte of out not yet fed to it.
	skel     hash.Hash
	mark     int
	dw       *Digest
	compress bool
	packed   []byte
	zw       *flate.Writer
}

// NewWriter starts a snapshot authenticated under key. compress stores a
// file DEFLATE-compressed (fastest level) when that makes it at least a
// tenth smaller; estimate is the sum of the entries' Estimate, so the
// snapshot's bytes are allocated once.
func NewWriter(key []byte, compress bool, estimate int) *Writer {
	out := make([]byte, 0, len(Magic)+1+2*sha256.Size+1+estimate+4096)
	out = append(append(out, Magic...), Version)
	return &Writer{out: out, skel: durable.NewMAC(key), dw: NewDigest(), compress: compress}
}

// Dir adds a directory.
func (w *Writer) Dir(e *Entry) {
	w.out = appendEntryHeader(w.out, e)
	w.dw.Header(e)
}

// File adds a file of e.Size bytes, which read fills in: read is handed
// a buffer of exactly that size, inside the snapshot's bytes. An error
// from read is returned as it is, and the Writer must then be dropped.
func (w *Writer) File(e *Entry, read func(dst []byte) error) error {
	w.out = appendEntryHeader(w.out, e)
	w.dw.Header(e)
	w.out = append(w.out, methodStored)
	at := len(w.out)
	w.out = slices.Grow(w.out, int(e.Size))[:at+int(e.Size)]
	if err := read(w.out[at:]); err != nil {
		return err
	}
	content := w.out[at:]
	w.dw.Write(content)
	if w.compress && e.Size >= 512 {
		if w.packed, w.zw = deflateIfSmaller(w.packed[:0], content, w.zw); w.packed != nil {
			w.out = w.out[:at-1]
			w.out = append(w.out, methodDeflate)
			w.out = binary.AppendUvarint(w.out, uint64(len(w.packed)))
			at = len(w.out)
			w.out = append(w.out, w.packed...)
		}
	}
	// The data is not part of the skeleton.
	w.skel.Write(w.out[w.mark:at])
	w.mark = len(w.out)
	return nil
}

// Budgets adds the calls left per budget key (a negative count is
// stored as 0), after every entry.
func (w *Writer) Budgets(left map[string]int64) {
	keys := make([]string, 0, len(left))
	for k := range left {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w.out = durable.AppendString(append(w.out, recBudget), k)
		w.out = binary.AppendUvarint(w.out, uint64(max(left[k], 0)))
	}
}

// Finish ends the snapshot and returns its bytes.
func (w *Writer) Finish() []byte {
	if w.zw != nil {
		flateWriters.Put(w.zw)
		w.zw = nil
	}
	w.out = append(w.out, recEnd)
	sum := w.dw.Sum()
	w.out = append(w.out, sum[:]...)
	w.skel.Write(w.out[w.mark:])
	return append(w.out, w.skel.Sum(nil)...)
}

// deflateIfSmaller compresses data into dst at the fastest level when a
// sample of it (the first 64 KiB) shrinks by a tenth or more, and returns
// nil when storing data as it is is better.
func deflateIfSmaller(dst, data []byte, zw *flate.Writer) ([]byte, *flate.Writer) {
	var buf bytes.Buffer
	if zw == nil {
		zw = flateWriters.Get().(*flate.Writer)
	}
	sample := data
	if len(sample) > 64<<10 {
		sample = sample[:64<<10]
		zw.Reset(&buf)
		zw.Write(sample)
		zw.Close()
		if buf.Len() > len(sample)*9/10 {
			return nil, zw
		}
		buf.Reset()
	}
	w := bytes.NewBuffer(dst)
	zw.Reset(w)
	zw.Write(data)
	zw.Close()
	if w.Len() > len(data)*9/10 {
		return nil, zw
	}
	return w.Bytes(), zw
}
