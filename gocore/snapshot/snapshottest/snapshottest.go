package snapshottest

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/snapshot"
)

// The format's record tags and file methods (docs/durable.md).
const (
	RecEnd     = 0
	RecDir     = 1
	RecFile    = 2
	RecBudget  = 3
	RecSession = 4

	MethodStored  = 0
	MethodDeflate = 1
)

// Builder writes snapshot bytes record by record, with a correct trailer
// under its key (the MAC of every byte but the files' data).
type Builder struct {
	key  []byte
	b    []byte // every byte
	skel []byte // every byte but the files' data
}

// New starts a snapshot (magic and version) sealed under key.
func New(key []byte) *Builder {
	h := append([]byte(snapshot.Magic), snapshot.Version)
	return &Builder{key: key, b: h, skel: append([]byte(nil), h...)}
}

func (s *Builder) put(b ...byte) {
	s.b = append(s.b, b...)
	s.skel = append(s.skel, b...)
}

// Dir adds a directory record (mtime 0).
func (s *Builder) Dir(p string, mode uint64) *Builder {
	rec := durable.AppendString([]byte{RecDir}, p)
	rec = binary.AppendUvarint(rec, mode)
	s.put(binary.AppendVarint(rec, 0)...)
	return s
}

// File adds a file record (mtime 0) declaring size bytes, stored with
// method, whose data is data as it is.
func (s *Builder) File(p string, mode, size uint64, method byte, data []byte) *Builder {
	rec := durable.AppendString([]byte{RecFile}, p)
	rec = binary.AppendUvarint(rec, mode)
	rec = binary.AppendVarint(rec, 0)
	rec = binary.AppendUvarint(rec, size)
	rec = append(rec, method)
	if method == MethodDeflate {
		rec = binary.AppendUvarint(rec, uint64(len(data)))
	}
	s.put(rec...)
	s.b = append(s.b, data...)
	return s
}

// Raw adds bytes as they are (to the skeleton too).
func (s *Builder) Raw(b ...byte) *Builder { s.put(b...); return s }

// Done ends the records, adds a files digest (zeros unless given) and
// the trailer.
func (s *Builder) Done(digest []byte) []byte {
	s.put(RecEnd)
	if digest == nil {
		digest = make([]byte, 32)
	}
	s.put(digest...)
	return s.Seal()
}

// Seal adds only the trailer: the MAC under the builder's key.
func (s *Builder) Seal() []byte {
	m := durable.NewMAC(s.key)
	m.Write(s.skel)
	return m.Sum(s.b)
}

// Reseal gives a snapshot's body a valid trailer under key, so checks
// after authentication are reached; data that cannot be framed is
// returned as it is.
func Reseal(data, key []byte) []byte {
	if len(data) < len(snapshot.Magic)+1+32 {
		return data
	}
	body := data[:len(data)-32]
	m := durable.NewMAC(key)
	if !skeleton(body, m) {
		return data
	}
	return m.Sum(append([]byte(nil), body...))
}

// SHA256Reseal gives a snapshot the trailer of format version 1 (the
// SHA-256 of its skeleton), as someone without the key would. It panics
// on data that cannot be framed.
func SHA256Reseal(data []byte) []byte {
	body := data[:len(data)-32]
	h := sha256.New()
	if !skeleton(body, h) {
		panic("snapshottest: SHA256Reseal of bytes that are not framed as a snapshot")
	}
	return h.Sum(append([]byte(nil), body...))
}

// Deflate compresses data as a Writer does (fastest level).
func Deflate(data []byte) []byte {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.BestSpeed)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// skeleton feeds h every byte of a snapshot's body (magic to files
// digest) but the files' data, reporting whether the body frames.
func skeleton(body []byte, h hash.Hash) bool {
	off, mark := len(snapshot.Magic)+1, 0
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(body[off:])
		off += max(n, 0)
		return v, n > 0
	}
	skip := func(n uint64) bool {
		if n > uint64(len(body)-off) {
			return false
		}
		off += int(n)
		return true
	}
	// stored reads a data field's declared size and method and returns
	// how many bytes of it follow.
	stored := func() (uint64, bool) {
		size, ok := uv()
		if !ok || off >= len(body) {
			return 0, false
		}
		method := body[off]
		off++
		switch method {
		case MethodStored:
			return size, true
		case MethodDeflate:
			return uv()
		}
		return 0, false
	}
	for {
		if off >= len(body) {
			return false
		}
		tag := body[off]
		off++
		switch tag {
		case RecEnd:
			if len(body)-off != 32 {
				return false
			}
			h.Write(body[mark:])
			return true
		case RecDir, RecFile:
			pathLen, ok := uv()
			if !ok || !skip(pathLen) {
				return false
			}
			var n int
			if _, ok := uv(); !ok { // mode
				return false
			}
			_, n = binary.Varint(body[off:]) // mtime
			if n <= 0 {
				return false
			}
			off += n
			if tag == RecDir {
				continue
			}
			size, ok := stored()
			if !ok {
				return false
			}
			h.Write(body[mark:off])
			if !skip(size) {
				return false
			}
			mark = off
		case RecBudget:
			n, ok := uv()
			if !ok || !skip(n) {
				return false
			}
			if _, ok := uv(); !ok {
				return false
			}
		case RecSession:
			// language · guest · memory size · globals · raw length ·
			// method · state, all of it in the skeleton.
			n, ok := uv()
			if !ok || !skip(n) || !skip(32) {
				return false
			}
			if _, ok := uv(); !ok {
				return false
			}
			globals, ok := uv()
			if !ok || globals > 1024 {
				return false
			}
			for i := uint64(0); i < globals; i++ {
				if !skip(1) {
					return false
				}
				if _, ok := uv(); !ok {
					return false
				}
			}
			size, ok := stored()
			if !ok || !skip(size) {
				return false
			}
		default:
			return false
		}
	}
}

// Session adds a session record as it is given: raw is its raw state
// (ranges as gaps, lengths and bytes), stored with method (deflated here
// when method is MethodDeflate); globals are (kind, bits) pairs.
func (s *Builder) Session(language string, guest [32]byte, memSize uint64, globals [][2]uint64, method byte, raw []byte) *Builder {
	rec := durable.AppendString([]byte{RecSession}, language)
	rec = append(rec, guest[:]...)
	rec = binary.AppendUvarint(rec, memSize)
	rec = binary.AppendUvarint(rec, uint64(len(globals)))
	for _, g := range globals {
		rec = binary.AppendUvarint(append(rec, byte(g[0])), g[1])
	}
	rec = binary.AppendUvarint(rec, uint64(len(raw)))
	rec = append(rec, method)
	if method == MethodDeflate {
		rec = durable.AppendBytes(rec, Deflate(raw))
	} else {
		rec = append(rec, raw...)
	}
	s.put(rec...)
	return s
}
