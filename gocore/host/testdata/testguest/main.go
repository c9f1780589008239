// Command testguest is a tiny guest for the host package's tests: its
// "script" is one command that exercises one host feature.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
	"amlasandbox/guests/shell/hostcall"
)

var (
	sink    [][]byte
	counter int
	kept    []*os.File
)

// amlaRun is the entry of the reactor build (-buildmode=c-shared).
//
//go:wasmexport amla_run
func amlaRun() int32 {
	main()
	return 0
}

func main() {
	in, err := hostcall.ReadInput()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	out, errw := hostcall.Writer{FD: 1}, hostcall.Writer{FD: 2}
	tools := hostcall.NewTools(in.Tools)
	cmd, arg, _ := strings.Cut(in.Code, " ")
	switch cmd {
	case "echo":
		fmt.Fprintln(out, arg)
		fmt.Fprintln(errw, "to stderr")
	case "spin":
		for {
		}
	case "alloc":
		for {
			sink = append(sink, make([]byte, 1<<20))
		}
	case "bigalloc": // bigalloc N: one block of N MiB, however little is held
		n, _ := strconv.Atoi(arg)
		sink = append(sink, make([]byte, n<<20))
		fmt.Fprintln(out, "allocated", len(sink[len(sink)-1])>>20)
	case "call": // call METHOD PARAMS
		method, params, _ := strings.Cut(arg, " ")
		a := hostapi.Call(tools, method, json.RawMessage(params))
		if a.OK {
			fmt.Fprintf(out, "ok %s\n", a.Result)
		} else {
			fmt.Fprintf(out, "err %s\n", a.Error)
		}
	case "batch": // submit N calls, then wait for all
		var ids []int64
		for i := 0; i < 10; i++ {
			ids = append(ids, tools.Submit("mcp:t", json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))))
		}
		for len(ids) > 0 {
			a := tools.Next(ids)
			fmt.Fprintf(out, "%d ", a.ID)
			for j, id := range ids {
				if id == a.ID {
					ids = append(ids[:j], ids[j+1:]...)
					break
				}
			}
		}
	case "fetchall": // fetchall N URL: N HTTP GETs of URL at once, then wait for all
		n, _ := strconv.Atoi(strings.Fields(arg)[0])
		url := strings.Fields(arg)[1]
		var ids []int64
		for i := 0; i < n; i++ {
			params, _ := json.Marshal(wire.HTTPRequest{Method: "GET", URL: url})
			ids = append(ids, tools.Submit(wire.MethodHTTP, params))
		}
		ok := 0
		for len(ids) > 0 {
			a := tools.Next(ids)
			if a.OK {
				ok++
			}
			for j, id := range ids {
				if id == a.ID {
					ids = append(ids[:j], ids[j+1:]...)
					break
				}
			}
		}
		fmt.Fprintf(out, "%d ok\n", ok)
	case "write": // write PATH TEXT
		path, text, _ := strings.Cut(arg, " ")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(out, "error:", err)
		}
	case "fill", "qfill": // [q]fill PATH: write 64 KiB blocks until a write fails or 16 MiB are written,
		// straight through WASI (fill) or asking the quota first (qfill)
		var f interface {
			Write([]byte) (int, error)
			Close() error
		}
		var err error
		if cmd == "fill" {
			f, err = os.Create(arg)
		} else {
			f, err = hostcall.CreateFile(arg, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		}
		if err != nil {
			fmt.Fprintln(out, "error:", err)
			break
		}
		block := make([]byte, 64<<10)
		total := 0
		var werr error
		for total < 16<<20 && werr == nil {
			var n int
			n, werr = f.Write(block)
			total += n
		}
		f.Close()
		fmt.Fprintf(out, "wrote %d: %v\n", total, werr)
	case "truncate": // truncate PATH BYTES: grow a file by truncate
		path, size, _ := strings.Cut(arg, " ")
		var n int64
		fmt.Sscan(size, &n)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			fmt.Fprintln(out, "error:", err)
		} else if err := os.Truncate(path, n); err != nil {
			fmt.Fprintln(out, "error:", err)
		} else {
			fmt.Fprintln(out, "truncated")
		}
	case "holdspawn": // holdspawn MIB CODE: hold MIB MiB, then run CODE as a child
		mib, code, _ := strings.Cut(arg, " ")
		var n int
		fmt.Sscan(mib, &n)
		b := make([]byte, n<<20)
		for i := range b {
			b[i] = 1
		}
		sink = append(sink, b)
		res := hostcall.Spawn(wire.SpawnRequest{Language: wire.LangShell, Code: code})
		fmt.Fprintf(out, "[%d] exit=%d error=%q out=%s", n, res.ExitCode, res.Error, res.Stdout)
	case "bigcalls": // bigcalls N KIB: submit N calls of KIB KiB params each, then wait for all
		var n, kib int
		fmt.Sscan(arg, &n, &kib)
		params, _ := json.Marshal(map[string]string{"s": strings.Repeat("x", kib<<10)})
		var ids []int64
		for i := 0; i < n; i++ {
			ids = append(ids, tools.Submit("mcp:t", params))
		}
		ok, refused := 0, ""
		for _, id := range ids {
			if a := tools.Next([]int64{id}); a.OK {
				ok++
			} else if refused == "" {
				refused = a.Error
			}
		}
		fmt.Fprintf(out, "ok=%d refused=%q\n", ok, refused)
	case "read":
		b, err := os.ReadFile(arg)
		if err != nil {
			fmt.Fprintln(out, "error:", err)
		} else {
			fmt.Fprintln(out, string(b))
		}
	case "sleep": // sleep MS
		var ms int
		fmt.Sscan(arg, &ms)
		hostcall.Sleep(time.Duration(ms) * time.Millisecond)
		fmt.Fprintln(out, "slept")
	case "spawn": // spawn CODE: run CODE as a child process
		res := hostcall.Spawn(wire.SpawnRequest{Language: wire.LangShell, Code: arg})
		fmt.Fprintf(out, "child exit=%d out=%q err=%q error=%q\n", res.ExitCode, res.Stdout, res.Stderr, res.Error)
	case "nest": // nest N: a chain of children, each one level deeper
		var n int
		fmt.Sscan(arg, &n)
		res := hostcall.Spawn(wire.SpawnRequest{Language: wire.LangShell, Code: fmt.Sprintf("nest %d", n+1)})
		fmt.Fprintf(out, "%d:%d %s%s", n, res.ExitCode, res.Error, res.Stdout)
		if res.ExitCode != 0 {
			fmt.Fprintln(out)
			hostcall.Exit(res.ExitCode)
		}
	case "counter": // a package variable, one more each run of one instance
		counter++
		fmt.Fprintln(out, counter)
	case "keepopen": // keepopen PATH: open PATH, leave it open, print its descriptor
		f, err := os.Create(arg)
		if err != nil {
			fmt.Fprintln(out, "error:", err)
		} else {
			kept = append(kept, f)
			fmt.Fprintln(out, f.Fd())
		}
	case "grow": // keep 32 MiB, growing the memory
		sink = append(sink, make([]byte, 32<<20))
		fmt.Fprintln(out, "grown")
	case "symlink", "link": // symlink|link OLD NEW
		old, name, _ := strings.Cut(arg, " ")
		mk := os.Symlink
		if cmd == "link" {
			mk = os.Link
		}
		if err := mk(old, name); err != nil {
			fmt.Fprintln(out, "error:", err)
		} else {
			fmt.Fprintln(out, "made")
		}
	case "rm": // rm PATH
		if err := os.Remove(arg); err != nil {
			fmt.Fprintln(out, "error:", err)
		} else {
			fmt.Fprintln(out, "removed")
		}
	case "raw": // raw HEX...: each argument's bytes as one write to stdout
		for _, h := range strings.Fields(arg) {
			b, _ := hex.DecodeString(h)
			out.Write(b)
		}
	case "exit":
		os.Exit(7)
	case "exit200":
		hostcall.Exit(200)
	}
}
