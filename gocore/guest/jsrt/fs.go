package jsrt

import (
	"amlasandbox/gocore/guest/hostcall"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dop251/goja"
)

// The filesystem natives are synchronous and throw Node-style errors; the
// prelude wraps each in an async function, so the script sees Promises that
// reject with them. Guest paths are resolved against /workspace; inside the
// guest WASI confines them to the sandbox's own directories, so nothing
// here decides what may be touched: it only names the failures as Node
// does.

// workDir is the current directory relative paths resolve against.
const workDir = "/workspace"

// guestPath resolves p as the script means it: relative to /workspace.
func guestPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = workDir + "/" + p
	}
	return path.Clean(p)
}

// hostPath is where guest path p lives for the os package.
func (rt *runtime) hostPath(p string) string {
	g := guestPath(p)
	if rt.opts.Root == "" {
		return g
	}
	return filepath.Join(rt.opts.Root, filepath.FromSlash(g))
}

// errnoInfo is a Node error code with its libuv message and errno.
type errnoInfo struct {
	code, text string
	errno      int
}

// errnoTable maps system errors to Node's codes. EPERM and EROFS become
// EACCES: writing under the sandbox's read-only "/" fails with EPERM in
// wasmtime, and the documented message is "EACCES: permission denied".
var errnoTable = []struct {
	err  error
	info errnoInfo
}{
	// Specific errnos first: errors.Is also matches ENOTEMPTY against
	// fs.ErrExist.
	{syscall.ENOTEMPTY, errnoInfo{"ENOTEMPTY", "directory not empty", -39}},
	{syscall.EPERM, errnoInfo{"EACCES", "permission denied", -13}},
	{syscall.EROFS, errnoInfo{"EACCES", "permission denied", -13}},
	{syscall.ENOTDIR, errnoInfo{"ENOTDIR", "not a directory", -20}},
	{syscall.EISDIR, errnoInfo{"EISDIR", "illegal operation on a directory", -21}},
	{syscall.EINVAL, errnoInfo{"EINVAL", "invalid argument", -22}},
	{syscall.ELOOP, errnoInfo{"ELOOP", "too many symbolic links encountered", -40}},
	{syscall.ENAMETOOLONG, errnoInfo{"ENAMETOOLONG", "name too long", -36}},
	{syscall.EXDEV, errnoInfo{"EXDEV", "cross-device link not permitted", -18}},
	{syscall.ENOSPC, errnoInfo{"ENOSPC", "no space left on device", -28}},
	{syscall.EBUSY, errnoInfo{"EBUSY", "resource busy or locked", -16}},
	{syscall.EMFILE, errnoInfo{"EMFILE", "too many open files", -24}},
	{syscall.EBADF, errnoInfo{"EBADF", "bad file descriptor", -9}},
	{syscall.EIO, errnoInfo{"EIO", "i/o error", -5}},
	{fs.ErrNotExist, errnoInfo{"ENOENT", "no such file or directory", -2}},
	{fs.ErrExist, errnoInfo{"EEXIST", "file already exists", -17}},
	{fs.ErrPermission, errnoInfo{"EACCES", "permission denied", -13}},
	{syscall.ENOSPC, errnoInfo{"ENOSPC", "no space left on device (the sandbox's disk quota is used up)", -28}},
}

var (
	errIsDir  = errnoInfo{"EISDIR", "illegal operation on a directory", -21}
	errNoEnt  = errnoInfo{"ENOENT", "no such file or directory", -2}
	errNotDir = errnoInfo{"ENOTDIR", "not a directory", -20}
)

func lookupErrno(err error) errnoInfo {
	for _, e := range errnoTable {
		if errors.Is(err, e.err) {
			return e.info
		}
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return errnoInfo{"UNKNOWN", msg, -4094}
}

// fsErrorMessage is Node's message: "<CODE>: <text>, <syscall> '<path>'"
// (with " -> '<dest>'" for two-path calls).
func fsErrorMessage(info errnoInfo, syscallName, p, dest string) string {
	msg := info.code + ": " + info.text + ", " + syscallName + " '" + p + "'"
	if dest != "" {
		msg += " -> '" + dest + "'"
	}
	return msg
}

// fsThrow raises the Node-style Error for a failed call.
func (rt *runtime) fsThrow(info errnoInfo, syscallName, p, dest string) {
	e := rt.newError(fsErrorMessage(info, syscallName, p, dest))
	_ = e.Set("errno", info.errno)
	_ = e.Set("code", info.code)
	_ = e.Set("syscall", syscallName)
	_ = e.Set("path", p)
	if dest != "" {
		_ = e.Set("dest", dest)
	}
	panic(e)
}

func (rt *runtime) fsCheck(err error, syscallName, p, dest string) {
	if err != nil {
		rt.fsThrow(lookupErrno(err), syscallName, p, dest)
	}
}

// pathArg is argument i as a path, with Node's TypeError otherwise.
func (rt *runtime) pathArg(call goja.FunctionCall, i int, name string) string {
	v := call.Argument(i)
	if s, ok := v.Export().(string); ok {
		if s == "" {
			rt.fsThrow(errNoEnt, "open", s, "")
		}
		return s
	}
	rt.throw(rt.typeErrorCtor, `The "`+name+`" argument must be of type string. Received `+describeArg(v))
	return ""
}

func describeArg(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if _, ok := v.(*goja.Object); ok {
		return "an instance of " + v.ToObject(nil).ClassName()
	}
	return "type " + v.ExportType().String() + " (" + v.String() + ")"
}

// fsNatives are the synchronous filesystem functions the prelude wraps.
func (rt *runtime) fsNatives() map[string]func(goja.FunctionCall) goja.Value {
	return map[string]func(goja.FunctionCall) goja.Value{
		"readFile":   rt.fsReadFile,
		"writeFile":  rt.fsWriteFile,
		"mkdir":      rt.fsMkdir,
		"readdir":    rt.fsReaddir,
		"stat":       rt.fsStat,
		"lstat":      rt.fsStat,
		"exists":     rt.fsExists,
		"unlink":     rt.fsUnlink,
		"rm":         rt.fsRm,
		"rmdir":      rt.fsRmdir,
		"rename":     rt.fsRename,
		"copyFile":   rt.fsCopyFile,
		"realpath":   rt.fsRealpath,
		"appendFile": rt.fsAppendFile,
	}
}

// fsReadFile(path, encoding) returns the contents as a string, or as a
// Uint8Array when encoding is "buffer".
func (rt *runtime) fsReadFile(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	enc := encodingArg(call.Argument(1))
	b, err := os.ReadFile(rt.hostPath(p))
	if err != nil {
		// Reading a directory fails with EISDIR natively but EBADF under
		// WASI; Node says EISDIR either way.
		if fi, serr := os.Stat(rt.hostPath(p)); serr == nil && fi.IsDir() {
			rt.fsThrow(errIsDir, "read", p, "")
		}
		rt.fsCheck(err, "open", p, "")
	}
	return rt.decodeBytes(b, enc)
}

// encodingArg is the encoding named by a string or {encoding} argument;
// "" means UTF-8.
func encodingArg(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	if o, ok := v.(*goja.Object); ok {
		e := o.Get("encoding")
		if e == nil || goja.IsUndefined(e) {
			return ""
		}
		if goja.IsNull(e) {
			return "buffer"
		}
		v = e
	}
	return strings.ToLower(v.String())
}

// decodeBytes turns file contents into the value an encoding asks for.
func (rt *runtime) decodeBytes(b []byte, enc string) goja.Value {
	switch enc {
	case "", "utf8", "utf-8":
		return rt.vm.ToValue(utf8String(b))
	case "base64":
		return rt.vm.ToValue(base64.StdEncoding.EncodeToString(b))
	case "base64url":
		return rt.vm.ToValue(base64.RawURLEncoding.EncodeToString(b))
	case "hex":
		return rt.vm.ToValue(hex.EncodeToString(b))
	case "latin1", "binary", "ascii":
		return latin1String(b)
	case "buffer":
		return rt.newUint8Array(b)
	}
	rt.throw(rt.typeErrorCtor, "Unknown encoding: "+enc)
	return nil
}

// dataArg is the bytes writeFile/appendFile write: a string in the given
// encoding, or the bytes of an ArrayBuffer, typed array or DataView.
// Numbers and booleans are written as their text; other objects are a
// TypeError (writing "[object Object]" is never what was meant).
func (rt *runtime) dataArg(v goja.Value, enc string) []byte {
	if b, ok := rt.bytesOf(v); ok {
		return b
	}
	if _, isObject := v.(*goja.Object); isObject || v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		rt.throw(rt.typeErrorCtor, `The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received `+describeArg(v))
	}
	s := v.String()
	switch enc {
	case "", "utf8", "utf-8":
		return []byte(s)
	case "base64", "base64url":
		b, err := decodeBase64Loose(s)
		if err != nil {
			rt.throw(rt.typeErrorCtor, "Invalid base64 data: "+err.Error())
		}
		return b
	case "hex":
		b, err := hex.DecodeString(s)
		if err != nil {
			rt.throw(rt.typeErrorCtor, "Invalid hex data: "+err.Error())
		}
		return b
	case "latin1", "binary", "ascii":
		b, _ := latin1Bytes(v)
		return b
	}
	rt.throw(rt.typeErrorCtor, "Unknown encoding: "+enc)
	return nil
}

func (rt *runtime) fsWriteFile(call goja.FunctionCall) goja.Value {
	return rt.writeFile(call, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

func (rt *runtime) fsAppendFile(call goja.FunctionCall) goja.Value {
	return rt.writeFile(call, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
}

func (rt *runtime) writeFile(call goja.FunctionCall, flags int) goja.Value {
	p := rt.pathArg(call, 0, "path")
	data := rt.dataArg(call.Argument(1), encodingArg(call.Argument(2)))
	f, err := hostcall.CreateFile(rt.hostPath(p), flags, 0o644)
	rt.fsCheck(err, "open", p, "")
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	rt.fsCheck(err, "write", p, "")
	return goja.Undefined()
}

// fsMkdir(path, recursive).
func (rt *runtime) fsMkdir(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	hp := rt.hostPath(p)
	if call.Argument(1).ToBoolean() {
		if fi, err := os.Stat(hp); err == nil {
			if !fi.IsDir() {
				rt.fsThrow(lookupErrno(syscall.EEXIST), "mkdir", p, "")
			}
			return goja.Undefined()
		}
		rt.fsCheck(hostcall.MkdirAll(hp, 0o755), "mkdir", p, "")
		return goja.Undefined()
	}
	rt.fsCheck(hostcall.Mkdir(hp, 0o755), "mkdir", p, "")
	return goja.Undefined()
}

// fsReaddir(path, withFileTypes) returns the entry names, sorted, or
// [name, isFile, isDirectory, isSymbolicLink] tuples the prelude turns
// into Dirent objects.
func (rt *runtime) fsReaddir(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	entries, err := os.ReadDir(rt.hostPath(p))
	if err != nil {
		if fi, serr := os.Stat(rt.hostPath(p)); serr == nil && !fi.IsDir() {
			rt.fsThrow(errNotDir, "scandir", p, "")
		}
		rt.fsCheck(err, "scandir", p, "")
	}
	out := make([]interface{}, len(entries))
	typed := call.Argument(1).ToBoolean()
	for i, e := range entries {
		if !typed {
			out[i] = e.Name()
			continue
		}
		mode := e.Type()
		out[i] = []interface{}{e.Name(), mode.IsRegular(), mode.IsDir(), mode&fs.ModeSymlink != 0}
	}
	return rt.vm.ToValue(out)
}

// fsStat(path) returns the fields of a stats object; isFile and
// isDirectory are booleans (API.md §4 pins the property form).
func (rt *runtime) fsStat(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	fi, err := os.Lstat(rt.hostPath(p))
	rt.fsCheck(err, "stat", p, "")
	if fi.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Stat(rt.hostPath(p)); err == nil {
			fi = target
		}
	}
	ms := float64(fi.ModTime().UnixNano()) / float64(time.Millisecond)
	o := rt.vm.NewObject()
	_ = o.Set("isFile", fi.Mode().IsRegular())
	_ = o.Set("isDirectory", fi.IsDir())
	_ = o.Set("isSymbolicLink", fi.Mode()&fs.ModeSymlink != 0)
	_ = o.Set("size", fi.Size())
	_ = o.Set("mode", uint32(fi.Mode().Perm())|modeType(fi.Mode()))
	_ = o.Set("mtimeMs", ms)
	return o
}

// modeType is the S_IFMT bits of a Node stats.mode.
func modeType(m fs.FileMode) uint32 {
	switch {
	case m.IsDir():
		return 0o040000
	case m&fs.ModeSymlink != 0:
		return 0o120000
	default:
		return 0o100000
	}
}

func (rt *runtime) fsExists(call goja.FunctionCall) goja.Value {
	s, ok := call.Argument(0).Export().(string)
	if !ok || s == "" {
		return rt.vm.ToValue(false)
	}
	_, err := os.Stat(rt.hostPath(s))
	return rt.vm.ToValue(err == nil)
}

// fsUnlink removes a file; a directory is EISDIR as on Linux (os.Remove
// would quietly remove an empty one).
func (rt *runtime) fsUnlink(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	hp := rt.hostPath(p)
	fi, err := os.Lstat(hp)
	rt.fsCheck(err, "unlink", p, "")
	if fi.IsDir() {
		rt.fsThrow(errIsDir, "unlink", p, "")
	}
	rt.fsCheck(os.Remove(hp), "unlink", p, "")
	return goja.Undefined()
}

// fsRm(path, recursive, force).
func (rt *runtime) fsRm(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	recursive, force := call.Argument(1).ToBoolean(), call.Argument(2).ToBoolean()
	hp := rt.hostPath(p)
	fi, err := os.Lstat(hp)
	if err != nil {
		if force && errors.Is(err, fs.ErrNotExist) {
			return goja.Undefined()
		}
		rt.fsCheck(err, "lstat", p, "")
	}
	if fi.IsDir() {
		if !recursive {
			rt.fsThrow(errIsDir, "rm", p, "")
		}
		rt.fsCheck(os.RemoveAll(hp), "rm", p, "")
		return goja.Undefined()
	}
	rt.fsCheck(os.Remove(hp), "rm", p, "")
	return goja.Undefined()
}

// fsRmdir(path, recursive) removes an empty directory (or, recursive, a
// whole tree).
func (rt *runtime) fsRmdir(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	hp := rt.hostPath(p)
	fi, err := os.Lstat(hp)
	rt.fsCheck(err, "rmdir", p, "")
	if !fi.IsDir() {
		rt.fsThrow(errNotDir, "rmdir", p, "")
	}
	if call.Argument(1).ToBoolean() {
		rt.fsCheck(os.RemoveAll(hp), "rmdir", p, "")
		return goja.Undefined()
	}
	rt.fsCheck(os.Remove(hp), "rmdir", p, "")
	return goja.Undefined()
}

func (rt *runtime) fsRename(call goja.FunctionCall) goja.Value {
	from, to := rt.pathArg(call, 0, "oldPath"), rt.pathArg(call, 1, "newPath")
	rt.fsCheck(os.Rename(rt.hostPath(from), rt.hostPath(to)), "rename", from, to)
	return goja.Undefined()
}

func (rt *runtime) fsCopyFile(call goja.FunctionCall) goja.Value {
	from, to := rt.pathArg(call, 0, "src"), rt.pathArg(call, 1, "dest")
	src, err := os.Open(rt.hostPath(from))
	rt.fsCheck(err, "copyfile", from, to)
	defer src.Close()
	if fi, err := src.Stat(); err == nil && fi.IsDir() {
		rt.fsThrow(errIsDir, "copyfile", from, to)
	}
	dst, err := hostcall.CreateFile(rt.hostPath(to), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	rt.fsCheck(err, "copyfile", from, to)
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	rt.fsCheck(err, "copyfile", from, to)
	return goja.Undefined()
}

// fsRealpath resolves the path lexically against /workspace and checks
// that it exists.
func (rt *runtime) fsRealpath(call goja.FunctionCall) goja.Value {
	p := rt.pathArg(call, 0, "path")
	_, err := os.Stat(rt.hostPath(p))
	rt.fsCheck(err, "realpath", p, "")
	return rt.vm.ToValue(guestPath(p))
}
