package jsrt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"syscall"
	"testing"
)

func TestFS(t *testing.T) {
	runCases(t, []jsCase{
		{name: "round trip", code: `
await fs.writeFile('/workspace/a.txt', 'hello');
console.log(await fs.readFile('/workspace/a.txt'));`, out: "hello\n"},
		{name: "relative paths resolve against /workspace", code: `
await fs.writeFile('rel.txt', 'r');
return [await fs.readFile('/workspace/rel.txt'), await fs.exists('./rel.txt')]`, out: "[\"r\",true]\n"},
		{name: "tmp is writable", code: `await fs.writeFile('/tmp/t', 'x'); return await fs.readFile('/tmp/t', 'utf8')`, out: "x\n"},
		{name: "overwrite and append", code: `
await fs.writeFile('f', 'one');
await fs.writeFile('f', 'two');
await fs.appendFile('f', '+three');
return await fs.readFile('f')`, out: "two+three\n"},
		{name: "mkdir recursive, readdir names", code: `
await fs.mkdir('/workspace/data/deep/er', {recursive: true});
await fs.writeFile('/workspace/data/b.txt', '');
await fs.writeFile('/workspace/data/a.txt', '');
await fs.mkdir('/workspace/data/deep/er', {recursive: true});
return await fs.readdir('/workspace/data')`, out: "[\"a.txt\",\"b.txt\",\"deep\"]\n"},
		{name: "mkdir existing", code: `await fs.mkdir('/workspace/d'); try { await fs.mkdir('/workspace/d') } catch (e) { return [e.code, e.message] }`,
			out: "[\"EEXIST\",\"EEXIST: file already exists, mkdir '/workspace/d'\"]\n"},
		{name: "mkdir missing parent", code: `try { await fs.mkdir('/workspace/x/y') } catch (e) { return e.message }`,
			out: "ENOENT: no such file or directory, mkdir '/workspace/x/y'\n"},
		{name: "stat booleans", code: `
await fs.writeFile('/workspace/s.txt', 'abcd');
const f = await fs.stat('/workspace/s.txt');
const d = await fs.stat('/workspace');
console.log(f.isFile, f.isDirectory, f.size, d.isDirectory, d.isFile, f.mtime instanceof Date);`,
			out: "true false 4 true false true\n"},
		{name: "stat missing", code: `try { await fs.stat('/workspace/none') } catch (e) { return e.message }`,
			out: "ENOENT: no such file or directory, stat '/workspace/none'\n"},
		{name: "readFile missing", code: `try { await fs.readFile('/workspace/missing.txt') } catch (e) { return [e instanceof Error, e.code, e.message] }`,
			out: "[true,\"ENOENT\",\"ENOENT: no such file or directory, open '/workspace/missing.txt'\"]\n"},
		{name: "readFile of a directory", code: `try { await fs.readFile('/workspace') } catch (e) { return e.code }`, out: "EISDIR\n"},
		{name: "exists", code: `await fs.writeFile('e', ''); return [await fs.exists('e'), await fs.exists('/workspace/nope'), await fs.exists('')]`,
			out: "[true,false,false]\n"},
		{name: "unlink", code: `await fs.writeFile('u', ''); await fs.unlink('u'); return await fs.exists('u')`, out: "false\n"},
		{name: "unlink missing", code: `try { await fs.unlink('/workspace/u') } catch (e) { return e.message }`,
			out: "ENOENT: no such file or directory, unlink '/workspace/u'\n"},
		{name: "unlink directory", code: `await fs.mkdir('dd'); try { await fs.unlink('dd') } catch (e) { return e.code }`, out: "EISDIR\n"},
		{name: "rm and rmdir", code: `
await fs.mkdir('t/u', {recursive: true});
await fs.writeFile('t/u/f', 'x');
let codes = [];
try { await fs.rm('t') } catch (e) { codes.push(e.code) }
try { await fs.rmdir('t') } catch (e) { codes.push(e.code) }
await fs.rm('t', {recursive: true});
await fs.rm('t', {force: true});
try { await fs.rm('t') } catch (e) { codes.push(e.code) }
return [codes, await fs.exists('t')]`, out: "[[\"EISDIR\",\"ENOTEMPTY\",\"ENOENT\"],false]\n"},
		{name: "rename and copyFile", code: `
await fs.writeFile('a', 'content');
await fs.rename('a', 'b');
await fs.copyFile('b', 'c');
return [await fs.exists('a'), await fs.readFile('b'), await fs.readFile('c')]`, out: "[false,\"content\",\"content\"]\n"},
		{name: "rename missing", code: `try { await fs.rename('/workspace/x', '/workspace/y') } catch (e) { return e.message }`,
			out: "ENOENT: no such file or directory, rename '/workspace/x' -> '/workspace/y'\n"},
		{name: "ENOTDIR", code: `await fs.writeFile('file', ''); try { await fs.readdir('file') } catch (e) { return e.message }`,
			out: "ENOTDIR: not a directory, scandir 'file'\n"},
		{name: "withFileTypes", code: `
await fs.mkdir('w/sub', {recursive: true}); await fs.writeFile('w/f.txt', '');
return (await fs.readdir('w', {withFileTypes: true})).map(d => d.name + ':' + d.isFile() + ':' + d.isDirectory())`,
			out: "[\"f.txt:true:false\",\"sub:false:true\"]\n"},
		{name: "recursive readdir", code: `
await fs.mkdir('r/a/b', {recursive: true}); await fs.writeFile('r/a/b/c.txt', '');
return await fs.readdir('r', {recursive: true})`, out: "[\"a\",\"a/b\",\"a/b/c.txt\"]\n"},
		{name: "bytes and encodings", code: `
await fs.writeFile('bin', new Uint8Array([0, 1, 255]));
const b = await fs.readFile('bin', {encoding: null});
await fs.writeFile('b64', 'aGk=', 'base64');
return [b instanceof Uint8Array, Array.from(b), await fs.readFile('bin', 'base64'), await fs.readFile('bin', 'hex'), await fs.readFile('b64')]`,
			out: "[true,[0,1,255],\"AAH/\",\"0001ff\",\"hi\"]\n"},
		{name: "unicode content", code: `await fs.writeFile('u8', 'héllo 🌍'); const s = await fs.readFile('u8'); return [s, s.length]`,
			out: "[\"héllo 🌍\",8]\n"},
		{name: "numbers are written as text", code: `await fs.writeFile('n', 42); return await fs.readFile('n')`, out: "42\n"},
		{name: "objects are a TypeError", code: `try { await fs.writeFile('o', {a: 1}) } catch (e) { return e.name + ': ' + e.message }`,
			out: "TypeError: The \"data\" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received an instance of Object\n"},
		{name: "path must be a string", code: `try { await fs.readFile() } catch (e) { return e.name }`, out: "TypeError\n"},
		{name: "callback style", code: `
await new Promise(done => fs.writeFile('cb', 'via callback', err => { console.log('err', err); done() }));
await new Promise(done => fs.readFile('cb', 'utf8', (err, data) => { console.log(data); done() }));
await new Promise(done => fs.readFile('none', (err) => { console.log(err.code); done() }));`,
			out: "err null\nvia callback\nENOENT\n"},
		{name: "promises alias and require", code: `
const fsp = require('fs/promises');
await fsp.writeFile('q', 'y');
return [fs.promises === fs, await require('node:fs').promises.readFile('q')]`, out: "[true,\"y\"]\n"},
		{name: "every Sync name throws", code: `
const names = Object.keys(fs).filter(k => k.endsWith('Sync'));
const ok = names.every(n => { try { fs[n]('x'); return false } catch (e) { return e.message.includes('await fs.' + n.slice(0, -4) + '(') } });
return [names.length > 10, ok]`, out: "[true,true]\n"},
		{name: "realpath", code: `await fs.mkdir('rp'); return await fs.realpath('rp/../rp')`, out: "/workspace/rp\n"},
	})
}

func TestFSPersistsAcrossRuns(t *testing.T) {
	root := newRoot(t)
	counter := `
let n = 0;
if (await fs.exists('/workspace/state/counter.txt')) n = Number(await fs.readFile('/workspace/state/counter.txt'));
console.log('counter was:', n);
await fs.mkdir('/workspace/state', {recursive: true});
await fs.writeFile('/workspace/state/counter.txt', String(n + 1));
console.log('counter now:', n + 1);`
	checkResult(t, runJS(t, counter, withRoot(root)), jsCase{out: "counter was: 0\ncounter now: 1\n"})
	checkResult(t, runJS(t, counter, withRoot(root)), jsCase{out: "counter was: 1\ncounter now: 2\n"})
	checkResult(t, runJS(t, `console.log('exists in sandbox2:', await fs.exists('/workspace/state/counter.txt'))`),
		jsCase{out: "exists in sandbox2: false\n"})
}

// TestFSReadOnlyRoot checks the EACCES message for writes outside the
// writable directories (needs a non-root user: root ignores modes).
func TestFSReadOnlyRoot(t *testing.T) {
	if goruntime.GOOS == "wasip1" {
		t.Skip("WASI does not enforce host directory modes")
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root: directory modes are not enforced (TestFSErrorMapping covers the mapping)")
	}
	root := newRoot(t)
	if err := os.Chmod(root, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(root, 0o755)
	checkResult(t, runJS(t, `try { await fs.mkdir('/mydir') } catch (e) { return e.message }`, withRoot(root)),
		jsCase{out: "EACCES: permission denied, mkdir '/mydir'\n"})
}

// TestFSErrorMapping pins the Node codes system errors become; EPERM and
// EROFS (what WASI reports for the read-only "/") read as EACCES.
func TestFSErrorMapping(t *testing.T) {
	cases := []struct {
		err             error
		syscall, p, dst string
		want            string
	}{
		{&fs.PathError{Op: "mkdir", Path: "/mydir", Err: syscall.EPERM}, "mkdir", "/mydir", "", "EACCES: permission denied, mkdir '/mydir'"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, "open", "/x", "", "EACCES: permission denied, open '/x'"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EROFS}, "open", "/x", "", "EACCES: permission denied, open '/x'"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, "open", "/x", "", "ENOENT: no such file or directory, open '/x'"},
		{&fs.PathError{Op: "mkdir", Path: "/x", Err: syscall.EEXIST}, "mkdir", "/x", "", "EEXIST: file already exists, mkdir '/x'"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOTDIR}, "open", "/x", "", "ENOTDIR: not a directory, open '/x'"},
		{&fs.PathError{Op: "read", Path: "/x", Err: syscall.EISDIR}, "read", "/x", "", "EISDIR: illegal operation on a directory, read '/x'"},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.ENOTEMPTY}, "rename", "a", "b", "ENOTEMPTY: directory not empty, rename 'a' -> 'b'"},
		{&fs.PathError{Op: "open", Path: "/x", Err: errors.New("odd")}, "open", "/x", "", "UNKNOWN: odd, open '/x'"},
	}
	for _, tc := range cases {
		if got := fsErrorMessage(lookupErrno(tc.err), tc.syscall, tc.p, tc.dst); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestGuestPath(t *testing.T) {
	cases := map[string]string{
		"a.txt":                          "/workspace/a.txt",
		"./d/../b":                       "/workspace/b",
		"/tmp/x":                         "/tmp/x",
		"/workspace/../../../etc/passwd": "/etc/passwd",
		"../up":                          "/up",
	}
	for in, want := range cases {
		if got := guestPath(in); got != want {
			t.Errorf("guestPath(%q) = %q, want %q", in, got, want)
		}
	}
	rt := &runtime{opts: Options{Root: "/r"}}
	if got := rt.hostPath("x"); got != filepath.Join("/r", "workspace", "x") {
		t.Errorf("hostPath = %q", got)
	}
}
