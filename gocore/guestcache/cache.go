package guestcache

// The on-disk cache of compiled guest modules.
//
// Compiling a guest with Cranelift takes seconds to tens of seconds;
// loading a compiled artifact takes about a millisecond. This file decides
// the artifact's name (its cache key), keeps the cache small, and makes
// sure that several processes needing the same artifact compile it once.
//
// Key (docs/install.md, "The module cache"): "<sha256(wasm)[:16]>-wt<wasmtime version>-<platform>-<machine>.cwasm",
// platform and machine spelled as Python's sys.platform and
// platform.machine(). The digest ties the artifact to the exact guest
// bytes; the wasmtime version comes from the build, not from a hand-written
// constant. wasmtime itself refuses an artifact made with other engine
// settings or for CPU features this machine lacks; LoadGuest then
// recompiles and replaces it.
//
// Pruning: artifacts that the running package does not use and that
// nobody has used for a grace period are removed, and while the cache is
// over its size cap the least recently used of them go too. "Used" is the
// file's modification time, refreshed whenever a process looks an artifact
// up. The grace period keeps two installations on one machine (two venvs,
// two versions) from deleting each other's artifacts on every start.
//
// Trust: an artifact is loaded only once it is verified as this package's
// (trust.go): owned by this user in a directory only this user can
// write, with a keyed digest written beside it when it was compiled.
//
// Concurrency: artifacts are written to a temporary file and renamed into
// place (writeAtomic), so readers never see half a file; removing a file
// another process has mapped is harmless on POSIX systems. Compiling takes
// a lock file beside the artifact, created with O_EXCL; other processes
// wait for the artifact instead of compiling it again. A lock older than
// lockStale (a crashed compiler) is taken over.

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	// wasmtimeModule is the Go module that links the wasmtime C library;
	// its major version is wasmtime's major version and its version the
	// version of the bundled library.
	wasmtimeModule = "github.com/bytecodealliance/wasmtime-go"
	// Suffix ends the name of every artifact.
	Suffix      = ".cwasm"
	cacheSuffix = Suffix
	lockSuffix  = ".lock"
	// lockStale is how old a compile lock may grow before it is taken to
	// belong to a process that died while compiling.
	lockStale = 10 * time.Minute
	// tmpStale is how old an orphaned temporary artifact must be to go.
	tmpStale = time.Hour
	// lockPoll is how often a waiting process looks for the artifact.
	lockPoll = 50 * time.Millisecond
)

// DefaultMaxBytes caps the cache; DefaultGrace is how long an artifact
// the running package does not use survives unused.
const (
	DefaultMaxBytes int64 = 1 << 30
	DefaultGrace          = time.Hour
)

// VersionFromBuildInfo finds the wasmtime-go module among info's
// dependencies (honouring a replace directive) and returns its version
// without the leading "v" ("39.0.1"). Binaries built without dependency
// information (go test) have none: EngineVersion reads it from an artifact.
func VersionFromBuildInfo(info *debug.BuildInfo) (string, error) {
	for _, dep := range info.Deps {
		if dep.Path != wasmtimeModule && !strings.HasPrefix(dep.Path, wasmtimeModule+"/") {
			continue
		}
		mod := dep
		if dep.Replace != nil {
			mod = dep.Replace
		}
		v := strings.TrimPrefix(mod.Version, "v")
		if v == "" || v == "(devel)" {
			return "", fmt.Errorf("wasmtime version: module %s has no version in the build info", mod.Path)
		}
		return v, nil
	}
	return "", fmt.Errorf("wasmtime version: %s is not among this binary's modules", wasmtimeModule)
}

// engineInfo is what wasmtime records about the engine in every artifact
// (".wasmtime.engine": compatibility version, target, Cranelift flags, CPU
// features, engine settings); we read the version.
type engineInfo struct {
	version string
}

// EngineVersion is the wasmtime version recorded in a compiled artifact
// (its ".wasmtime.engine" section).
func EngineVersion(artifact []byte) (string, error) {
	info, err := parseEngineSection(artifact)
	return info.version, err
}

// parseEngineSection reads the engine record of a serialized module: an
// ELF section ".wasmtime.engine" that starts with a format byte (0) and a
// length-prefixed version string.
func parseEngineSection(artifact []byte) (engineInfo, error) {
	f, err := elf.NewFile(bytes.NewReader(artifact))
	if err != nil {
		return engineInfo{}, fmt.Errorf("engine fingerprint: artifact is not ELF: %w", err)
	}
	s := f.Section(".wasmtime.engine")
	if s == nil {
		return engineInfo{}, errors.New("engine fingerprint: artifact has no .wasmtime.engine section")
	}
	data, err := s.Data()
	if err != nil {
		return engineInfo{}, fmt.Errorf("engine fingerprint: %w", err)
	}
	if len(data) < 2 || data[0] != 0 || int(data[1]) > len(data)-2 || data[1] == 0 {
		return engineInfo{}, fmt.Errorf("engine fingerprint: unknown .wasmtime.engine layout (%d bytes)", len(data))
	}
	return engineInfo{version: string(data[2 : 2+int(data[1])])}, nil
}

type digestKey struct {
	path  string
	size  int64
	mtime int64
}

var (
	digestMu sync.Mutex
	digests  = map[digestKey]string{}
)

// FileDigest is the hex SHA-256 of the file at path, remembered per
// (path, size, modification time) so that later sandboxes pay nothing.
func FileDigest(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("digest of %s: %w", path, err)
	}
	key := digestKey{path, st.Size(), st.ModTime().UnixNano()}
	if d, ok := rememberedDigest(key); ok {
		return d, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("digest of %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("digest of %s: %w", path, err)
	}
	d := hex.EncodeToString(h.Sum(nil))
	rememberDigest(key, d)
	return d, nil
}

// rememberedDigest is the digest this process made of the file key names.
func rememberedDigest(key digestKey) (string, bool) {
	digestMu.Lock()
	defer digestMu.Unlock()
	d, ok := digests[key]
	return d, ok
}

// rememberDigest records d as the digest of the file key names.
func rememberDigest(key digestKey, d string) {
	digestMu.Lock()
	defer digestMu.Unlock()
	digests[key] = d
}

// FileName is the artifact name (the cache key) for the guest at wasmPath
// compiled by wasmtime version wasmtimeVersion for this platform.
func FileName(wasmPath, wasmtimeVersion string) (string, error) {
	return FileNameIn("", wasmPath, wasmtimeVersion)
}

// FileNameIn is FileName with the wasm file's digest remembered in the
// cache directory dir across processes (DigestIn).
func FileNameIn(dir, wasmPath, wasmtimeVersion string) (string, error) {
	d, err := DigestIn(dir, wasmPath)
	if err != nil {
		return "", err
	}
	v := wasmtimeVersion
	if v == "" {
		return "", errors.New("module cache: no wasmtime version to key artifacts with")
	}
	return fmt.Sprintf("%s-wt%s-%s-%s%s", d[:16], v, pythonPlatform(runtime.GOOS), pythonMachine(runtime.GOOS, runtime.GOARCH), cacheSuffix), nil
}

// pythonPlatform and pythonMachine spell the platform as Python's
// sys.platform and platform.machine() do: the documented key format
// (docs/install.md, "The module cache") predates the Go core.
func pythonPlatform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

func pythonMachine(goos, goarch string) string {
	switch {
	case goarch == "amd64" && goos == "windows":
		return "AMD64"
	case goarch == "amd64":
		return "x86_64"
	case goarch == "arm64" && goos == "linux":
		return "aarch64"
	case goarch == "arm64" && goos == "windows":
		return "ARM64"
	case goarch == "386":
		return "i686"
	}
	return goarch
}

// Entry tells where a guest's artifact lives and what Ensure did.
type Entry struct {
	Path string `json:"path"`
	// Compiled is true when this call compiled the artifact, Waited when it
	// waited for another process that was compiling it.
	Compiled bool `json:"compiled"`
	Waited   bool `json:"waited"`
	// CompileSeconds is how long compiling took (when Compiled).
	CompileSeconds float64 `json:"compile_seconds"`
}

// Path is dir joined with the artifact name for wasmPath (FileName). When
// the artifact exists it counts as used: the modification time of its
// digest file is refreshed (lastUsed). Not the artifact's own: that would
// move its change time, which its verified stamp records (trust.go), and
// every process would digest the whole artifact again.
func Path(dir, wasmPath, wasmtimeVersion string) (path string, present bool, err error) {
	name, err := FileNameIn(dir, wasmPath, wasmtimeVersion)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		now := time.Now()
		_ = os.Chtimes(path+macSuffix, now, now) // best effort: a read-only cache still works
		return path, true, nil
	}
	return path, false, nil
}

// lastUsed is when the cache file at path (described by info) was last
// written or used: for an artifact, the later of its own modification time
// and its digest file's, which Path refreshes.
func lastUsed(path string, info os.FileInfo) time.Time {
	t := info.ModTime()
	if strings.HasSuffix(path, cacheSuffix) {
		if mac, err := os.Stat(path + macSuffix); err == nil && mac.ModTime().After(t) {
			t = mac.ModTime()
		}
	}
	return t
}

// CompileFunc compiles the guest at wasmPath and writes its artifact to
// outPath (with WriteArtifact, so that it verifies), returning how long
// compiling took. The host supplies it: this package never compiles.
type CompileFunc func(wasmPath, outPath string) (time.Duration, error)

// Ensure returns the artifact for wasmPath in dir (named for
// wasmtimeVersion), having compile make it first when it is missing. Only
// one process compiles a given artifact at a time; the others wait up to
// lockStale for it. onCompile, when not nil, runs just before this process
// starts compiling (to tell the user).
func Ensure(dir, wasmPath, wasmtimeVersion string, compile CompileFunc, onCompile func(waiting bool)) (Entry, error) {
	path, present, err := Path(dir, wasmPath, wasmtimeVersion)
	if err != nil {
		return Entry{}, err
	}
	entry := Entry{Path: path}
	if present {
		return entry, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return entry, fmt.Errorf("module cache %s: %w", dir, err)
	}
	lock := path + lockSuffix
	for announced := false; ; {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return entry, fmt.Errorf("module cache lock %s: %w", lock, err)
		}
		// Another process is compiling: wait for its artifact.
		if !announced && onCompile != nil {
			onCompile(true)
			announced = true
		}
		entry.Waited = true
		if _, err := os.Stat(path); err == nil {
			return entry, nil
		}
		if st, err := os.Stat(lock); err == nil && time.Since(st.ModTime()) > lockStale {
			_ = os.Remove(lock) // its owner died; take over
			continue
		}
		time.Sleep(lockPoll)
	}
	defer os.Remove(lock)
	// The artifact may have appeared between our look and taking the lock.
	if _, err := os.Stat(path); err == nil {
		return entry, nil
	}
	if onCompile != nil && !entry.Waited {
		onCompile(false)
	}
	took, err := compile(wasmPath, path)
	if err != nil {
		return entry, err
	}
	if _, err := os.Stat(path); err != nil {
		return entry, fmt.Errorf("module cache: compiled %s but could not write %s: %w", wasmPath, path, err)
	}
	entry.Compiled, entry.CompileSeconds = true, took.Seconds()
	return entry, nil
}

// AutoPruneEvery is how often a cache directory is pruned without being
// asked (AutoPruneDue): pruning lists the directory and names every
// installed guest's artifact (hashing each guest whose digest is not
// remembered, DigestIn: the data guest is over 100 MB, a tenth of a second
// of a CPU), and a cache changes by a few artifacts per install.
const AutoPruneEvery = time.Hour

// autoPruneStamp is the file in a cache directory whose modification time
// says when an automatic prune last began (Prune leaves it alone: it is
// no artifact).
const autoPruneStamp = ".last-prune"

// AutoPruneDue reports whether dir's automatic prune is due at now (none
// began within every, or the stamp says a time in the future) and, when it
// is, marks it begun now. Two processes starting together may both find it
// due; pruning twice is harmless.
func AutoPruneDue(dir string, every time.Duration, now time.Time) bool {
	stamp := filepath.Join(dir, autoPruneStamp)
	if st, err := os.Stat(stamp); err == nil {
		if at := st.ModTime(); !at.After(now) && now.Sub(at) < every {
			return false
		}
	}
	f, err := os.OpenFile(stamp, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return true // an unwritable directory: prune, as before there was a stamp
	}
	_ = f.Close()
	_ = os.Chtimes(stamp, now, now)
	return true
}

// PruneReport lists what Prune removed and what the cache holds after.
type PruneReport struct {
	Removed []string `json:"removed"`
	Bytes   int64    `json:"bytes"`
}

type cacheFile struct {
	path  string
	size  int64
	mtime time.Time
}

// Prune removes from dir the artifacts that are not in keep (full paths)
// and have not been used for grace, orphaned temporary files and stale
// locks; then, while the artifacts left exceed maxBytes, the least
// recently used ones not in keep. Only artifacts named for wasmtimeVersion
// are this package's to remove; files it does not recognise are left
// alone. A file that vanishes meanwhile (another process pruning) is fine.
func Prune(dir string, keep []string, maxBytes int64, grace time.Duration, wasmtimeVersion string) (PruneReport, error) {
	report := PruneReport{Removed: []string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return report, nil
		}
		return report, fmt.Errorf("module cache %s: %w", dir, err)
	}
	kept := make(map[string]bool, len(keep))
	for _, k := range keep {
		kept[filepath.Clean(k)] = true
	}
	now := time.Now()
	remove := func(path string) {
		if err := os.Remove(path); err == nil || errors.Is(err, os.ErrNotExist) {
			report.Removed = append(report.Removed, filepath.Base(path))
		}
		if strings.HasSuffix(path, cacheSuffix) {
			_ = os.Remove(path + macSuffix) // its digest (trust.go)
		}
	}
	pruneDigestRecords(filepath.Join(dir, digestsDir), now, grace)
	var candidates []cacheFile
	for _, e := range entries {
		name := e.Name()
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		age := now.Sub(lastUsed(path, info))
		switch {
		case strings.HasPrefix(name, ".tmp-") && strings.HasSuffix(name, cacheSuffix):
			if age > tmpStale {
				remove(path)
			}
		case strings.HasSuffix(name, cacheSuffix+macSuffix):
			// A digest whose artifact is gone.
			if _, err := os.Lstat(strings.TrimSuffix(path, macSuffix)); errors.Is(err, os.ErrNotExist) && age > tmpStale {
				remove(path)
			}
		case strings.HasSuffix(name, cacheSuffix+lockSuffix):
			if age > lockStale {
				remove(path)
			}
		case strings.HasSuffix(name, cacheSuffix) && !ownArtifact(name, wasmtimeVersion):
			// Another program's artifact in the same directory (the
			// reference amla-sandbox names its files the same way, with
			// its own wasmtime version): not ours to remove.
		case strings.HasSuffix(name, cacheSuffix):
			if kept[path] {
				report.Bytes += info.Size()
			} else if age > grace {
				remove(path)
			} else {
				candidates = append(candidates, cacheFile{path, info.Size(), lastUsed(path, info)})
				report.Bytes += info.Size()
			}
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].mtime.Before(candidates[j].mtime) })
	for _, c := range candidates {
		if report.Bytes <= maxBytes {
			break
		}
		remove(c.path)
		report.Bytes -= c.size
	}
	return report, nil
}

// PortableTarget is the target triple and the Cranelift CPU feature flags
// a shipped artifact is compiled for: features every machine of the
// architecture that can run a current OS has (x86-64-v2 on x86_64), so
// that the artifact loads almost everywhere. A machine lacking one makes
// wasmtime refuse the artifact; the host then compiles for the machine
// itself.
func PortableTarget(goos, goarch string) (triple string, features []string, err error) {
	switch goos + "/" + goarch {
	case "linux/amd64":
		return "x86_64-unknown-linux-gnu", x8664v2, nil
	case "linux/arm64":
		return "aarch64-unknown-linux-gnu", nil, nil
	case "darwin/amd64":
		return "x86_64-apple-darwin", x8664v2, nil
	case "darwin/arm64":
		return "aarch64-apple-darwin", nil, nil
	}
	return "", nil, fmt.Errorf("portable artifacts: no baseline CPU defined for %s/%s", goos, goarch)
}

var x8664v2 = []string{"has_sse3", "has_ssse3", "has_sse41", "has_sse42", "has_popcnt"}

// compileSecondsPerMB brackets Cranelift's compile time per MB of guest on
// a 2-core x86_64 machine (26.5 MB guest: 18.6 s idle to 47.5 s loaded);
// used only to tell the user what to expect.
var compileSecondsPerMB = [2]float64{0.7, 1.8}

// AnnounceCompile writes the one line a user sees while a guest compiles
// (the same line runtime/cache.py prints); pass it to Ensure from
// code that compiles lazily, when Python cannot know a compile is coming.
func AnnounceCompile(dir, wasmPath string) func(waiting bool) {
	return func(waiting bool) {
		fmt.Fprintln(os.Stderr, compileNote(dir, wasmPath, waiting))
	}
}

func compileNote(dir, wasmPath string, waiting bool) string {
	mb := 0.0
	if st, err := os.Stat(wasmPath); err == nil {
		mb = float64(st.Size()) / 1e6
	}
	lo := max(1, int(mb*compileSecondsPerMB[0]+0.5))
	hi := max(1, int(mb*compileSecondsPerMB[1]+0.5))
	what := "compiling"
	if waiting {
		what = "waiting for another process compiling"
	}
	return fmt.Sprintf("amla-sandbox: %s the %s guest for this machine, once per install (usually %d-%d s; cached in %s)",
		what, filepath.Base(wasmPath), lo, hi, dir)
}

// ownArtifact tells whether a cache file name carries the wasmtime version
// this package links ("<digest>-wt<version>-..."): only those are ours.
func ownArtifact(name, wasmtimeVersion string) bool {
	return wasmtimeVersion != "" && strings.Contains(name, "-wt"+wasmtimeVersion+"-")
}
