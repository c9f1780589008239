package snapshot

// The snapshot format:
//
//	magic "AMLASNAP" · version (1 byte)
//	records, each a tag byte:
//	  1 directory: path · mode · mtime
//	  2 file:      path · mode · mtime · size · method · data
//	               (method 0: size bytes as they are; 1: uvarint length,
//	               then that many bytes of DEFLATE that inflate to size)
//	  3 budget:    key · calls left
//	  4 session:   a kept interpreter's state (session.go)
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
// records in their stored form (Digest), the identity of the files'
// state whether or not a snapshot compresses them.
//
// Parsing is strict: anything not exactly this is an error that names the
// byte offset or the path at fault, and nothing is written before the
// whole snapshot has been checked (the host's restore).

import (
	"bytes"
	"compress/flate"
	"crypto/hmac"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"unicode/utf8"

	"amlasandbox/gocore/durable"
	"amlasandbox/gocore/wire"
)

const (
	// Magic and Version begin every snapshot.
	Magic   = "AMLASNAP"
	Version = 2

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
	// MaxKeyBytes bounds a budget key.
	MaxKeyBytes = 4096
)

// ErrInvalid is wrapped by every error about a snapshot's bytes.
var ErrInvalid = errors.New("invalid snapshot")

// Errorf makes an error about a snapshot's bytes (it wraps ErrInvalid).
func Errorf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Entry is one directory or file of a snapshot.
type Entry struct {
	Path  string // "tmp/a/b"
	Dir   bool
	Mode  uint32 // permission bits
	MTime int64  // nanoseconds since 1970
	Size  int64
	// For a parsed file: its method and its data as stored.
	method byte
	data   []byte
}

// GuestPath is how the guest names p ("/workspace/a").
func GuestPath(p string) string { return "/" + p }

// CheckPath refuses a path that is not relative, clean and under tmp or
// workspace.
func CheckPath(p string) error {
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

// ParentOf is p's directory ("" for tmp and workspace).
func ParentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// Parsed is a snapshot that passed every check but the files digest,
// which needs the data inflated (the restore checks it as it writes:
// CheckDigest).
type Parsed struct {
	Entries []Entry
	Budgets map[string]int64
	// Sessions are the live interpreter states of a sandbox that keeps
	// state, sorted by language (session.go).
	Sessions []Session
	Digest   [32]byte
	// Cost is what the disk quota charges for the files once restored
	// (the host's measure of a sandbox holding them).
	Cost int64
}

// CheckDigest is the error for files, restored from p, whose files digest
// (got) is not the one p says.
func (p *Parsed) CheckDigest(got [32]byte) error {
	if got != p.Digest {
		return Errorf("snapshot damaged or changed: its files do not match its files digest (%x..., it says %x...)", got[:8], p.Digest[:8])
	}
	return nil
}

// rawRecord is one record as framed, before its meaning is checked.
type rawRecord struct {
	at   int // byte offset
	tag  byte
	e    Entry   // directory and file records
	key  string  // budget records
	n    uint64  // a budget's calls left; a file's declared size
	sess Session // session records
}

// frameSnapshot checks a snapshot's trailer under key, then splits its
// body into records, decoding only what says where each field ends. The
// trailer is checked in a first pass that keeps nothing, so a snapshot
// that is not authentic costs no memory beyond its bytes. Any error here
// means damaged, truncated, changed or foreign bytes.
func frameSnapshot(data, key []byte) ([]rawRecord, [32]byte, error) {
	var digest [32]byte
	body, err := durable.CheckHeader(data, Magic, Version, "snapshot", Errorf)
	if err != nil {
		return nil, digest, err
	}
	// The trailer is the MAC of the snapshot's skeleton: every byte but
	// the files' data, which the files digest covers.
	skel := durable.NewMAC(key)
	if _, err := walkSnapRecords(body, skel, nil); err != nil {
		return nil, digest, err
	}
	if !hmac.Equal(skel.Sum(nil), data[len(body):]) {
		return nil, digest, durable.AuthError("snapshot", Errorf)
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
	r := durable.NewReader(body, len(Magic)+1, "snapshot", Errorf)
	mark := 0
	var err error
	for {
		rec := rawRecord{at: r.Off()}
		if rec.tag, err = r.Byte("record tag"); err != nil {
			return 0, err
		}
		if rec.tag == recEnd {
			break
		}
		switch rec.tag {
		case recDir, recFile:
			e := &rec.e
			e.Dir = rec.tag == recDir
			if e.Path, err = r.String(maxPathBytes, "path"); err != nil {
				return 0, err
			}
			mode, err := r.Uvarint("mode of " + quote(e.Path))
			if err != nil {
				return 0, err
			}
			if mode > 0o7777777 {
				return 0, Errorf("snapshot damaged at byte %d: mode %#o of %s", r.Off(), mode, quote(e.Path))
			}
			e.Mode = uint32(mode)
			if e.MTime, err = r.Varint("mtime of " + quote(e.Path)); err != nil {
				return 0, err
			}
			if e.Dir {
				break
			}
			if rec.n, err = r.Uvarint("size of " + quote(e.Path)); err != nil {
				return 0, err
			}
			if e.method, err = r.Byte("method of " + quote(e.Path)); err != nil {
				return 0, err
			}
			n := rec.n
			switch e.method {
			case methodStored:
			case methodDeflate:
				if n, err = r.Uvarint("compressed length of " + quote(e.Path)); err != nil {
					return 0, err
				}
			default:
				return 0, Errorf("snapshot damaged at byte %d: %s has unknown method %d", r.Off()-1, quote(e.Path), e.method)
			}
			if skel != nil {
				skel.Write(body[mark:r.Off()])
			}
			if e.data, err = r.Bytes(n, "the data of "+quote(e.Path)); err != nil {
				return 0, err
			}
			mark = r.Off()
		case recBudget:
			if rec.key, err = r.String(MaxKeyBytes, "budget key"); err != nil {
				return 0, err
			}
			if rec.n, err = r.Uvarint("budget of " + rec.key); err != nil {
				return 0, err
			}
		case recSession:
			if rec.sess, err = readSession(r); err != nil {
				return 0, err
			}
		default:
			return 0, Errorf("snapshot damaged at byte %d: unknown record type %d", rec.at, rec.tag)
		}
		if emit != nil {
			emit(rec)
		}
	}
	end := r.Off()
	if _, err := r.Bytes(32, "files digest"); err != nil {
		return 0, err
	}
	if r.Left() != 0 {
		return 0, Errorf("snapshot damaged: %d bytes after its end", r.Left())
	}
	if skel != nil {
		skel.Write(body[mark:])
	}
	return end, nil
}

// Parse checks data and returns its records: first its trailer under key
// and its framing, then what the records say. It inflates nothing: a
// compressed file's declared size is counted in Cost, for the caller to
// check against its quota before any byte of it is inflated (Open), and
// inflating stops at that size.
func Parse(data, key []byte) (*Parsed, error) {
	recs, digest, err := frameSnapshot(data, key)
	if err != nil {
		return nil, err
	}
	ps := &Parsed{Budgets: map[string]int64{}, Digest: digest}
	// The root directory of the sandbox is an entry of the quota too.
	ps.Cost = wire.DiskEntryCost
	dirs := map[string]bool{}
	prev, prevKey := "", ""
	seenBudget, prevLang := false, ""
	for _, rec := range recs {
		if rec.tag == recSession {
			if prevLang != "" && rec.sess.Language <= prevLang {
				return nil, Errorf("snapshot: the %s session comes after the %s one (languages must be unique and sorted)", rec.sess.Language, prevLang)
			}
			ps.Sessions = append(ps.Sessions, rec.sess)
			prevLang = rec.sess.Language
			continue
		}
		if prevLang != "" {
			return nil, Errorf("snapshot at byte %d: a record after the sessions", rec.at)
		}
		if rec.tag == recBudget {
			seenBudget = true
			if prevKey != "" && rec.key <= prevKey {
				return nil, Errorf("snapshot: budget %q comes after %q (keys must be unique and sorted)", rec.key, prevKey)
			}
			if rec.n > 1<<62 {
				return nil, Errorf("snapshot: budget %q of %d calls", rec.key, rec.n)
			}
			ps.Budgets[rec.key] = int64(rec.n)
			prevKey = rec.key
			continue
		}
		e := rec.e
		if seenBudget {
			return nil, Errorf("snapshot at byte %d: a file record after the budgets", rec.at)
		}
		if err := CheckPath(e.Path); err != nil {
			return nil, Errorf("snapshot at byte %d: %s: %v", rec.at, quote(e.Path), err)
		}
		if prev != "" && !pathLess(prev, e.Path) {
			return nil, Errorf("snapshot: %s comes after %s (entries must be unique and in walk order)", quote(e.Path), quote(prev))
		}
		parent := ParentOf(e.Path)
		if parent == "" {
			if !e.Dir {
				return nil, Errorf("snapshot: %s must be a directory", quote(e.Path))
			}
		} else if !dirs[parent] {
			return nil, Errorf("snapshot: %s comes before its directory %s", quote(e.Path), quote(parent))
		}
		need := uint32(0o600)
		if e.Dir {
			need = 0o700
		}
		if e.Mode > 0o777 || e.Mode&need != need {
			return nil, Errorf("snapshot: %s has mode %#o (want permission bits only, with the owner's %#o)", quote(e.Path), e.Mode, need)
		}
		ps.Cost += wire.DiskEntryCost
		if e.Dir {
			dirs[e.Path] = true
		} else {
			if rec.n > 1<<62 {
				return nil, Errorf("snapshot: %s declares %d bytes", quote(e.Path), rec.n)
			}
			e.Size = int64(rec.n)
			ps.Cost += RoundBlock(e.Size)
			if ps.Cost < 0 {
				return nil, Errorf("snapshot: the files' sizes overflow")
			}
		}
		prev = e.Path
		ps.Entries = append(ps.Entries, e)
	}
	for _, top := range []string{"tmp", "workspace"} {
		if !dirs[top] {
			return nil, Errorf("snapshot has no %s directory", GuestPath(top))
		}
	}
	return ps, nil
}

// RoundBlock is size rounded up to whole quota blocks.
func RoundBlock(size int64) int64 {
	return (size + wire.DiskEntryCost - 1) / wire.DiskEntryCost * wire.DiskEntryCost
}

func quote(p string) string { return fmt.Sprintf("%q", GuestPath(p)) }

// Open returns a reader of a parsed file's contents that yields exactly
// e.Size bytes or an error.
func (e *Entry) Open() io.Reader {
	if e.method == methodStored {
		return bytes.NewReader(e.data)
	}
	return durable.NewExactReader(flate.NewReader(bytes.NewReader(e.data)), e.Size, "snapshot: "+quote(e.Path), Errorf)
}
