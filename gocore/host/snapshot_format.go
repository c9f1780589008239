package host

// The snapshot format: a sandbox's files (/tmp and /workspace) and its
// budgets, as one byte string (docs/durable.md gives the layout).
//
//	magic "AMLASNAP" · version (1 byte)
//	records, each a tag byte:
//	  1 directory: path · mode · mtime
//	  2 file:      path · mode · mtime · size · method · data
//	               (method 0: size bytes as they are; 1: uvarint length,
//	               then that many bytes of DEFLATE that inflate to size)
//	  3 budget:    key · calls left
//	  0 end
//	files digest (32 bytes) · trailer (32 bytes)
//
// The trailer is the HMAC-SHA-256, under the sandbox's durable key, of the
// snapshot's skeleton: every byte before it except the files' data, which
// the files digest (inside the skeleton) covers. So each byte is hashed
// once when a snapshot is written and once when it is read, and a snapshot
// made under another key, or edited, is refused before any record of it
// is used (a file's data is checked against the files digest as it is
// written, and the restore undone if it does not match).
//
// Integers are varints (encoding/binary; mtime is signed nanoseconds since
// 1970), strings a uvarint length and UTF-8 bytes. Paths are relative,
// "/"-separated, start with "tmp" or "workspace", and appear in canonical
// order: a depth-first walk with each directory's entries sorted by name,
// which is also the order in which the host walks a sandbox. So a path
// appears once, after its parent. The files digest is the SHA-256 of the
// records in their stored form (filesDigest), the identity of the files'
// state whether or not a snapshot compresses them.
//
// Parsing is strict: anything not exactly this is an error that names the
// byte offset or the path at fault, and nothing is written before the
// whole snapshot has been checked (restore).

import (
	"bytes"
	"compress/flate"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"unicode/utf8"

	"amlasandbox/gocore/wire"
)

const (
	snapMagic   = "AMLASNAP"
	snapVersion = 2

	recEnd    = 0
	recDir    = 1
	recFile   = 2
	recBudget = 3

	methodStored  = 0
	methodDeflate = 1

	// Bounds every reader of a sandbox's files holds to, in line with
	// what Linux filesystems allow.
	maxPathBytes      = 4096
	maxComponentBytes = 255
	maxKeyBytes       = 4096
)

// ErrSnapshot is wrapped by every error about a snapshot's bytes.
var ErrSnapshot = errors.New("invalid snapshot")

func snapErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSnapshot, fmt.Sprintf(format, a...))
}

// snapEntry is one directory or file of a snapshot.
type snapEntry struct {
	path  string // "tmp/a/b"
	dir   bool
	mode  uint32 // permission bits
	mtime int64  // nanoseconds since 1970
	size  int64
	// For a parsed file: its method and its data as stored.
	method byte
	data   []byte
}

// guestPath is how the guest names p ("/workspace/a").
func guestPath(p string) string { return "/" + p }

// checkSnapPath refuses a path that is not relative, clean and under tmp
// or workspace.
func checkSnapPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case len(p) > maxPathBytes:
		return fmt.Errorf("path longer than %d bytes", maxPathBytes)
	case !utf8.ValidString(p):
		return errors.New("path is not valid UTF-8")
	case strings.ContainsRune(p, 0):
		return errors.New("path contains NUL")
	case strings.HasPrefix(p, "/"):
		return errors.New("absolute path")
	}
	parts := strings.Split(p, "/")
	if parts[0] != "tmp" && parts[0] != "workspace" {
		return fmt.Errorf("path outside /tmp and /workspace (first component %q)", parts[0])
	}
	for _, c := range parts {
		switch {
		case c == "" || c == "." || c == "..":
			return fmt.Errorf("path component %q", c)
		case len(c) > maxComponentBytes:
			return fmt.Errorf("path component longer than %d bytes", maxComponentBytes)
		}
	}
	return nil
}

// pathLess orders paths as a depth-first walk with sorted entries does:
// component by component.
func pathLess(a, b string) bool {
	for {
		ai, bi := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ac, bc := a, b
		if ai >= 0 {
			ac = a[:ai]
		}
		if bi >= 0 {
			bc = b[:bi]
		}
		if ac != bc {
			return ac < bc
		}
		if ai < 0 || bi < 0 {
			return ai < 0 && bi >= 0 // a is b's ancestor
		}
		a, b = a[ai+1:], b[bi+1:]
	}
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// digestWriter feeds the canonical (stored) form of entries to a hash:
// the files digest.
type digestWriter struct {
	h   hash.Hash
	buf []byte
}

func newDigestWriter() *digestWriter { return &digestWriter{h: sha256.New()} }

// header hashes an entry's record up to its data.
func (d *digestWriter) header(e *snapEntry) {
	d.buf = appendEntryHeader(d.buf[:0], e)
	if !e.dir {
		d.buf = append(d.buf, methodStored)
	}
	d.h.Write(d.buf)
}

func (d *digestWriter) sum() (out [32]byte) {
	copy(out[:], d.h.Sum(nil))
	return out
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendEntryHeader writes an entry's tag, path, mode, mtime and, for a
// file, its size.
func appendEntryHeader(b []byte, e *snapEntry) []byte {
	tag := byte(recFile)
	if e.dir {
		tag = recDir
	}
	b = append(b, tag)
	b = appendString(b, e.path)
	b = binary.AppendUvarint(b, uint64(e.mode))
	b = binary.AppendVarint(b, e.mtime)
	if !e.dir {
		b = binary.AppendUvarint(b, uint64(e.size))
	}
	return b
}

// snapReader reads the fields of a snapshot or journal, refusing to read
// past its end.
type snapReader struct {
	b   []byte
	off int
	// what is named in errors: "snapshot" or "journal".
	what string
	err  func(string, ...any) error
}

func (r *snapReader) fail(field string) error {
	return r.err("%s damaged or truncated at byte %d (reading %s)", r.what, r.off, field)
}

func (r *snapReader) byte1(field string) (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail(field)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *snapReader) uvarint(field string) (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail(field)
	}
	r.off += n
	return v, nil
}

func (r *snapReader) varint(field string) (int64, error) {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		return 0, r.fail(field)
	}
	r.off += n
	return v, nil
}

// bytesN returns the next n bytes (a view, not a copy).
func (r *snapReader) bytesN(n uint64, field string) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, r.err("%s damaged or truncated at byte %d: %s needs %d bytes, %d are left", r.what, r.off, field, n, len(r.b)-r.off)
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

// str reads a string of at most max bytes.
func (r *snapReader) str(max uint64, field string) (string, error) {
	n, err := r.uvarint(field)
	if err != nil {
		return "", err
	}
	if n > max {
		return "", r.err("%s at byte %d: %s is %d bytes, more than %d", r.what, r.off, field, n, max)
	}
	b, err := r.bytesN(n, field)
	return string(b), err
}

// checkHeader checks data's magic and version and returns the bytes
// before its 32-byte trailer.
func checkHeader(data []byte, magic string, version byte, what string, mkErr func(string, ...any) error) ([]byte, error) {
	if len(data) < len(magic)+1+sha256.Size {
		return nil, mkErr("%d bytes are too few for an amla-sandbox %s", len(data), what)
	}
	if string(data[:len(magic)]) != magic {
		return nil, mkErr("not an amla-sandbox %s (it does not start with %q)", what, magic)
	}
	if v := data[len(magic)]; v != version {
		why := ""
		if v < version {
			why = "; older versions carry no authentication and cannot be read"
		}
		return nil, mkErr("%s format version %d is not supported (this build reads version %d%s)", what, v, version, why)
	}
	return data[:len(data)-sha256.Size], nil
}

// newMAC is the keyed hash every trailer is made with: HMAC-SHA-256 under
// the durable key.
func newMAC(key []byte) hash.Hash { return hmac.New(sha256.New, key) }

// errAuth is the error for a trailer that is not the MAC of what it
// covers: another key made it, or the bytes were changed.
func errAuth(what string, mkErr func(string, ...any) error) error {
	return mkErr("authentication failed: this %s was made under another durable key, or its bytes were changed, truncated or damaged "+
		"(give the key it was made with: durable_key=... or AMLA_SANDBOX_DURABLE_KEY)", what)
}

// checkTrailer verifies that data ends with the MAC under key of every
// byte before it (a journal's trailer) and returns those bytes.
func checkTrailer(data []byte, magic string, version byte, what string, mkErr func(string, ...any) error, key []byte) ([]byte, error) {
	body, err := checkHeader(data, magic, version, what, mkErr)
	if err != nil {
		return nil, err
	}
	m := newMAC(key)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), data[len(body):]) {
		return nil, errAuth(what, mkErr)
	}
	return body, nil
}

// parsedSnapshot is a snapshot that passed every check but the files
// digest, which needs the data inflated (restore checks it as it writes).
type parsedSnapshot struct {
	entries []snapEntry
	budgets map[string]int64
	digest  [32]byte
	// cost is what the disk quota charges for the files once restored
	// (diskUsage of a sandbox holding them).
	cost int64
}

// rawRecord is one record as framed, before its meaning is checked.
type rawRecord struct {
	at  int // byte offset
	tag byte
	e   snapEntry // directory and file records
	key string    // budget records
	n   uint64    // a budget's calls left; a file's declared size
}

// frameSnapshot checks a snapshot's trailer under key, then splits its
// body into records, decoding only what says where each field ends. The
// trailer is checked in a first pass that keeps nothing, so a snapshot
// that is not authentic costs no memory beyond its bytes. Any error here
// means damaged, truncated, changed or foreign bytes.
func frameSnapshot(data, key []byte) ([]rawRecord, [32]byte, error) {
	var digest [32]byte
	body, err := checkHeader(data, snapMagic, snapVersion, "snapshot", snapErr)
	if err != nil {
		return nil, digest, err
	}
	// The trailer is the MAC of the snapshot's skeleton: every byte but
	// the files' data, which the files digest covers.
	skel := newMAC(key)
	if _, err := walkSnapRecords(body, skel, nil); err != nil {
		return nil, digest, err
	}
	if !hmac.Equal(skel.Sum(nil), data[len(body):]) {
		return nil, digest, errAuth("snapshot", snapErr)
	}
	var recs []rawRecord
	end, err := walkSnapRecords(body, nil, func(rec rawRecord) { recs = append(recs, rec) })
	if err != nil {
		return nil, digest, err
	}
	copy(digest[:], body[end:])
	return recs, digest, nil
}

// walkSnapRecords frames the records of a snapshot's body: it feeds the
// skeleton to skel (if not nil), hands each record to emit (if not nil),
// and returns the offset of the files digest.
func walkSnapRecords(body []byte, skel hash.Hash, emit func(rawRecord)) (int, error) {
	r := &snapReader{b: body, off: len(snapMagic) + 1, what: "snapshot", err: snapErr}
	mark := 0
	var err error
	for {
		rec := rawRecord{at: r.off}
		if rec.tag, err = r.byte1("record tag"); err != nil {
			return 0, err
		}
		if rec.tag == recEnd {
			break
		}
		switch rec.tag {
		case recDir, recFile:
			e := &rec.e
			e.dir = rec.tag == recDir
			if e.path, err = r.str(maxPathBytes, "path"); err != nil {
				return 0, err
			}
			mode, err := r.uvarint("mode of " + quote(e.path))
			if err != nil {
				return 0, err
			}
			if mode > 0o7777777 {
				return 0, snapErr("snapshot damaged at byte %d: mode %#o of %s", r.off, mode, quote(e.path))
			}
			e.mode = uint32(mode)
			if e.mtime, err = r.varint("mtime of " + quote(e.path)); err != nil {
				return 0, err
			}
			if e.dir {
				break
			}
			if rec.n, err = r.uvarint("size of " + quote(e.path)); err != nil {
				return 0, err
			}
			if e.method, err = r.byte1("method of " + quote(e.path)); err != nil {
				return 0, err
			}
			n := rec.n
			switch e.method {
			case methodStored:
			case methodDeflate:
				if n, err = r.uvarint("compressed length of " + quote(e.path)); err != nil {
					return 0, err
				}
			default:
				return 0, snapErr("snapshot damaged at byte %d: %s has unknown method %d", r.off-1, quote(e.path), e.method)
			}
			if skel != nil {
				skel.Write(body[mark:r.off])
			}
			if e.data, err = r.bytesN(n, "the data of "+quote(e.path)); err != nil {
				return 0, err
			}
			mark = r.off
		case recBudget:
			if rec.key, err = r.str(maxKeyBytes, "budget key"); err != nil {
				return 0, err
			}
			if rec.n, err = r.uvarint("budget of " + rec.key); err != nil {
				return 0, err
			}
		default:
			return 0, snapErr("snapshot damaged at byte %d: unknown record type %d", rec.at, rec.tag)
		}
		if emit != nil {
			emit(rec)
		}
	}
	end := r.off
	if _, err := r.bytesN(32, "files digest"); err != nil {
		return 0, err
	}
	if r.off != len(body) {
		return 0, snapErr("snapshot damaged: %d bytes after its end", len(body)-r.off)
	}
	if skel != nil {
		skel.Write(body[mark:])
	}
	return end, nil
}

// parseSnapshot checks data and returns its records: first its trailer
// under key and its framing (frameSnapshot), then what the records say. It inflates
// nothing: a compressed file's declared size is checked against the quota
// before any byte of it is inflated, and inflating stops at that size.
func parseSnapshot(data, key []byte) (*parsedSnapshot, error) {
	recs, digest, err := frameSnapshot(data, key)
	if err != nil {
		return nil, err
	}
	ps := &parsedSnapshot{budgets: map[string]int64{}, digest: digest}
	// The root directory of the sandbox is an entry of the quota too.
	ps.cost = wire.DiskEntryCost
	dirs := map[string]bool{}
	prev, prevKey := "", ""
	seenBudget := false
	for _, rec := range recs {
		if rec.tag == recBudget {
			seenBudget = true
			if prevKey != "" && rec.key <= prevKey {
				return nil, snapErr("snapshot: budget %q comes after %q (keys must be unique and sorted)", rec.key, prevKey)
			}
			if rec.n > 1<<62 {
				return nil, snapErr("snapshot: budget %q of %d calls", rec.key, rec.n)
			}
			ps.budgets[rec.key] = int64(rec.n)
			prevKey = rec.key
			continue
		}
		e := rec.e
		if seenBudget {
			return nil, snapErr("snapshot at byte %d: a file record after the budgets", rec.at)
		}
		if err := checkSnapPath(e.path); err != nil {
			return nil, snapErr("snapshot at byte %d: %s: %v", rec.at, quote(e.path), err)
		}
		if prev != "" && !pathLess(prev, e.path) {
			return nil, snapErr("snapshot: %s comes after %s (entries must be unique and in walk order)", quote(e.path), quote(prev))
		}
		parent := parentOf(e.path)
		if parent == "" {
			if !e.dir {
				return nil, snapErr("snapshot: %s must be a directory", quote(e.path))
			}
		} else if !dirs[parent] {
			return nil, snapErr("snapshot: %s comes before its directory %s", quote(e.path), quote(parent))
		}
		need := uint32(0o600)
		if e.dir {
			need = 0o700
		}
		if e.mode > 0o777 || e.mode&need != need {
			return nil, snapErr("snapshot: %s has mode %#o (want permission bits only, with the owner's %#o)", quote(e.path), e.mode, need)
		}
		ps.cost += wire.DiskEntryCost
		if e.dir {
			dirs[e.path] = true
		} else {
			if rec.n > 1<<62 {
				return nil, snapErr("snapshot: %s declares %d bytes", quote(e.path), rec.n)
			}
			e.size = int64(rec.n)
			ps.cost += roundBlock(e.size)
			if ps.cost < 0 {
				return nil, snapErr("snapshot: the files' sizes overflow")
			}
		}
		prev = e.path
		ps.entries = append(ps.entries, e)
	}
	for _, top := range []string{"tmp", "workspace"} {
		if !dirs[top] {
			return nil, snapErr("snapshot has no %s directory", guestPath(top))
		}
	}
	return ps, nil
}

// roundBlock is size rounded up to whole quota blocks.
func roundBlock(size int64) int64 {
	return (size + wire.DiskEntryCost - 1) / wire.DiskEntryCost * wire.DiskEntryCost
}

func quote(p string) string { return fmt.Sprintf("%q", guestPath(p)) }

// openData returns a reader of a parsed file's contents that yields
// exactly e.size bytes or an error.
func (e *snapEntry) openData() io.Reader {
	if e.method == methodStored {
		return bytes.NewReader(e.data)
	}
	return &exactReader{r: flate.NewReader(bytes.NewReader(e.data)), left: e.size, name: "snapshot: " + quote(e.path), mk: snapErr}
}

// exactReader reads an inflating stream that must produce exactly left
// bytes: a stream that ends early or goes on (a decompression bomb) is an
// error, and no more than left bytes are ever produced. name says what is
// inflated in errors, which mk makes.
type exactReader struct {
	r    io.Reader
	left int64
	name string
	mk   func(string, ...any) error
}

func (x *exactReader) Read(p []byte) (int, error) {
	if x.left == 0 {
		// The stream must end here.
		var one [1]byte
		n, err := x.r.Read(one[:])
		for tries := 0; n == 0 && err == nil && tries < 16; tries++ {
			n, err = x.r.Read(one[:])
		}
		if n > 0 {
			return 0, x.mk("%s inflates to more bytes than it declares", x.name)
		}
		if err == io.EOF {
			return 0, io.EOF
		}
		if err == nil {
			return 0, x.mk("%s: its compressed data does not end", x.name)
		}
		return 0, x.mk("%s: compressed data: %v", x.name, err)
	}
	if int64(len(p)) > x.left {
		p = p[:x.left]
	}
	n, err := x.r.Read(p)
	x.left -= int64(n)
	if err == io.EOF {
		if x.left > 0 {
			return n, x.mk("%s inflates to fewer bytes than it declares", x.name)
		}
		err = nil
	} else if err != nil {
		return n, x.mk("%s: compressed data: %v", x.name, err)
	}
	return n, err
}
