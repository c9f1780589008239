package snapshot

// Session records: the live state of a kept interpreter (a sandbox made
// with keep_state), one record per language, after the budgets:
//
//	4 session: language · guest (32 bytes) · memory size · globals · raw length · method · state
//	           globals: uvarint count, then per global a kind byte and its bits (uvarint)
//	           state: method 0, raw length bytes; method 1, uvarint length, then
//	           that many bytes of DEFLATE that inflate to exactly raw length
//	           raw state: ranges, each uvarint gap (from the end of the previous
//	           range, or 0) · uvarint length (> 0) · that many bytes
//
// The guest is the SHA-256 of the guest module the instance ran; the
// memory size is the instance's linear memory in bytes; the globals are
// the values of the mutable globals the guest's snapshot exports for
// resetting (gocore/wasmsnap), in their export order; the ranges are the
// bytes of the memory that differ from a fresh instance's. Unlike a
// file's data, a session's bytes are part of the skeleton the trailer
// authenticates: nothing else covers them.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"sort"

	"amlasandbox/gocore/durable"
)

const recSession = 4

// The kinds of a session's globals, as wasm value types.
const (
	GlobalI32 = 0
	GlobalI64 = 1
	GlobalF32 = 2
	GlobalF64 = 3
)

const (
	// MaxSessionMemory bounds a session's memory size: a 32-bit linear
	// memory's largest.
	MaxSessionMemory = 1 << 32
	maxGlobals       = 1024
	maxLanguageBytes = 64
)

// Global is the value of one of a session's globals: Bits holds an
// integer's two's-complement bits, or a float's IEEE bits.
type Global struct {
	Kind byte
	Bits uint64
}

// Range is bytes of a session's memory at an offset.
type Range struct {
	Off  uint64
	Data []byte
}

// Session is a kept interpreter's state as a snapshot holds it.
type Session struct {
	Language   string
	Guest      [32]byte
	MemorySize uint64
	Globals    []Global

	rawLen uint64
	method byte
	data   []byte
}

// rawLength is the length of ranges, sorted and not overlapping, encoded
// as the raw state.
func rawLength(ranges []Range) uint64 {
	var buf [binary.MaxVarintLen64]byte
	n, end := uint64(0), uint64(0)
	for _, r := range ranges {
		n += uint64(binary.PutUvarint(buf[:], r.Off-end))
		n += uint64(binary.PutUvarint(buf[:], uint64(len(r.Data))))
		n += uint64(len(r.Data))
		end = r.Off + uint64(len(r.Data))
	}
	return n
}

// writeRanges writes ranges as the raw state to w.
func writeRanges(w io.Writer, ranges []Range) {
	var buf [2 * binary.MaxVarintLen64]byte
	end := uint64(0)
	for _, r := range ranges {
		n := binary.PutUvarint(buf[:], r.Off-end)
		n += binary.PutUvarint(buf[n:], uint64(len(r.Data)))
		w.Write(buf[:n])
		w.Write(r.Data)
		end = r.Off + uint64(len(r.Data))
	}
}

// appendWriter appends what is written to a byte slice.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// Sessions adds the live sessions, after the budgets: ranges[i] are the
// changed bytes of sessions[i]'s memory, sorted by offset and not
// overlapping. They are written sorted by language.
func (w *Writer) Sessions(sessions []Session, ranges [][]Range) {
	order := make([]int, len(sessions))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return sessions[order[a]].Language < sessions[order[b]].Language })
	for _, i := range order {
		s := &sessions[i]
		w.out = durable.AppendString(append(w.out, recSession), s.Language)
		w.out = append(w.out, s.Guest[:]...)
		w.out = binary.AppendUvarint(w.out, s.MemorySize)
		w.out = binary.AppendUvarint(w.out, uint64(len(s.Globals)))
		for _, g := range s.Globals {
			w.out = binary.AppendUvarint(append(w.out, g.Kind), g.Bits)
		}
		rawLen := rawLength(ranges[i])
		w.out = binary.AppendUvarint(w.out, rawLen)
		if w.compress && rawLen >= 512 {
			// Compressed straight from the ranges; kept only when that
			// saves a tenth or more, as for files.
			if w.zw == nil {
				w.zw = flateWriters.Get().(*flate.Writer)
			}
			packed := &appendWriter{b: w.packed[:0]}
			w.zw.Reset(packed)
			writeRanges(w.zw, ranges[i])
			w.zw.Close()
			w.packed = packed.b
			if uint64(len(w.packed)) <= rawLen*9/10 {
				w.out = append(w.out, methodDeflate)
				w.out = durable.AppendBytes(w.out, w.packed)
				continue
			}
		}
		w.out = append(w.out, methodStored)
		w.out = slices.Grow(w.out, int(rawLen))
		aw := &appendWriter{b: w.out}
		writeRanges(aw, ranges[i])
		w.out = aw.b
	}
}

// readSession decodes a session record's fields after its tag.
func readSession(r *durable.Reader) (Session, error) {
	var s Session
	var err error
	if s.Language, err = r.String(maxLanguageBytes, "session language"); err != nil {
		return s, err
	}
	what := "the " + s.Language + " session's "
	if s.Language == "" {
		what = "a session's "
	}
	guest, err := r.Bytes(32, what+"guest digest")
	if err != nil {
		return s, err
	}
	copy(s.Guest[:], guest)
	if s.MemorySize, err = r.Uvarint(what + "memory size"); err != nil {
		return s, err
	}
	if s.MemorySize == 0 || s.MemorySize > MaxSessionMemory || s.MemorySize%65536 != 0 {
		return s, Errorf("snapshot damaged at byte %d: %smemory size %d (want whole 64 KiB pages, at most 4 GiB)", r.Off(), what, s.MemorySize)
	}
	n, err := r.Uvarint(what + "global count")
	if err != nil {
		return s, err
	}
	if n > maxGlobals {
		return s, Errorf("snapshot damaged at byte %d: %s%d globals", r.Off(), what, n)
	}
	for i := uint64(0); i < n; i++ {
		kind, err := r.Byte(what + "global kind")
		if err != nil {
			return s, err
		}
		bits, err := r.Uvarint(what + "global value")
		if err != nil {
			return s, err
		}
		if kind > GlobalF64 || (kind == GlobalI32 || kind == GlobalF32) && bits > math.MaxUint32 {
			return s, Errorf("snapshot damaged at byte %d: %sglobal %d has kind %d and value %#x", r.Off(), what, i, kind, bits)
		}
		s.Globals = append(s.Globals, Global{Kind: kind, Bits: bits})
	}
	if s.rawLen, err = r.Uvarint(what + "state length"); err != nil {
		return s, err
	}
	// Ranges cover at most the whole memory, each with at most 20 bytes
	// of gap and length.
	if s.rawLen > s.MemorySize+20*(s.MemorySize/4096+1) {
		return s, Errorf("snapshot damaged at byte %d: %sstate of %d bytes for a memory of %d", r.Off(), what, s.rawLen, s.MemorySize)
	}
	if s.method, err = r.Byte(what + "state method"); err != nil {
		return s, err
	}
	n = s.rawLen
	switch s.method {
	case methodStored:
	case methodDeflate:
		if n, err = r.Uvarint(what + "compressed state length"); err != nil {
			return s, err
		}
	default:
		return s, Errorf("snapshot damaged at byte %d: %sstate has unknown method %d", r.Off()-1, what, s.method)
	}
	s.data, err = r.Bytes(n, what+"state")
	return s, err
}

// Ranges inflates the session's state and hands each range to fn, in
// order. The data fn gets is valid only during the call. Any damage (a
// range past the memory size, out of order, empty, or a state that does
// not inflate to its declared length) is an error, which may come after
// fn has seen earlier ranges.
func (s *Session) Ranges(fn func(off uint64, data []byte) error) error {
	what := "snapshot: the " + s.Language + " session's state"
	var src io.Reader = bytes.NewReader(s.data)
	if s.method == methodDeflate {
		src = durable.NewExactReader(flate.NewReader(src), int64(s.rawLen), what, Errorf)
	}
	br := &byteReader{r: src}
	left := s.rawLen
	end := uint64(0)
	buf := make([]byte, 0, 64<<10)
	for left > 0 {
		gap, err := binary.ReadUvarint(br)
		if err != nil {
			return Errorf("%s is damaged: %v", what, err)
		}
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return Errorf("%s is damaged: %v", what, err)
		}
		used := uint64(br.n)
		br.n = 0
		if used > left || n == 0 || n > left-used || gap > s.MemorySize || end+gap > s.MemorySize-n || n > s.MemorySize {
			return Errorf("%s is damaged: a range of %d bytes at %d in a memory of %d", what, n, end+gap, s.MemorySize)
		}
		left -= used + n
		off := end + gap
		for n > 0 {
			chunk := min(n, uint64(cap(buf)))
			buf = buf[:chunk]
			if _, err := io.ReadFull(br, buf); err != nil {
				return Errorf("%s is damaged: %v", what, err)
			}
			br.n = 0
			if err := fn(off, buf); err != nil {
				return err
			}
			off += chunk
			n -= chunk
		}
		end = off
	}
	if s.method == methodStored {
		return nil
	}
	// The declared length must be the whole inflated state.
	if _, err := br.ReadByte(); err != io.EOF {
		if errors.Is(err, ErrInvalid) {
			return err
		}
		return Errorf("%s is longer than it says", what)
	}
	return nil
}

// byteReader counts the bytes read through it, for ReadUvarint.
type byteReader struct {
	r   io.Reader
	n   int
	one [1]byte
}

func (b *byteReader) ReadByte() (byte, error) {
	if _, err := io.ReadFull(b.r, b.one[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return 0, err
	}
	b.n++
	return b.one[0], nil
}

func (b *byteReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += n
	return n, err
}
