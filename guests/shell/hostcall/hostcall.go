package hostcall

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"amlasandbox/gocore/wire"
	"amlasandbox/guests/shell/hostapi"
)

// ErrNoHost is returned outside a wasip1 guest.
var ErrNoHost = errors.New("hostcall: not running inside the amla-sandbox host")

// ReadInput returns the run's Input.
func ReadInput() (wire.Input, error) {
	var in wire.Input
	if !available {
		return in, ErrNoHost
	}
	buf := make([]byte, inputLen())
	if len(buf) > 0 {
		inputRead(buf)
	}
	if err := json.Unmarshal(buf, &in); err != nil {
		return in, fmt.Errorf("hostcall: decoding run input: %w", err)
	}
	return in, nil
}

// Exit ends the guest with the script's exit status (any int; the host
// reports it as given).
func Exit(code int) {
	exitStatus(code)
	os.Exit(0)
}

// SetExitStatus records the script's exit status without ending the guest
// (a reactor returns from its run export instead).
func SetExitStatus(code int) { exitStatus(code) }

// Sleep waits d in the host, where the run's deadline and cancellation
// apply: a sleep past the deadline ends the run there. Outside a guest it
// is time.Sleep.
func Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	if !available {
		time.Sleep(d)
		return
	}
	sleepMS(int64((d + time.Millisecond - 1) / time.Millisecond))
}

// Spawn runs req as a child process of this run (the other guest, on the
// same files, inside the run's limits) and returns how it ended.
func Spawn(req wire.SpawnRequest) wire.SpawnResult {
	if !available {
		return wire.SpawnResult{ExitCode: 127, Error: ErrNoHost.Error()}
	}
	// The output comes after the JSON (wire.SpawnFrame), a byte for a byte.
	req.OutputApart = true
	data, err := json.Marshal(req)
	if err != nil {
		return wire.SpawnResult{ExitCode: 2, Error: "spawn: " + err.Error()}
	}
	n := spawn(data)
	buf := make([]byte, n)
	if n > 0 {
		spawnTake(buf)
	}
	res, err := decodeSpawnFrame(buf)
	if err != nil {
		return wire.SpawnResult{ExitCode: 2, Error: "spawn: undecodable result: " + err.Error()}
	}
	return res
}

// decodeSpawnFrame reads a wire.SpawnFrame.
func decodeSpawnFrame(b []byte) (wire.SpawnResult, error) {
	var res wire.SpawnResult
	if len(b) < wire.SpawnFrameHeader {
		return res, errors.New("short frame")
	}
	nOut, nErr := uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[4:]))
	body := b[wire.SpawnFrameHeader:]
	if nOut+nErr > uint64(len(body)) {
		return res, errors.New("output lengths past the frame")
	}
	head := body[:uint64(len(body))-nOut-nErr]
	if err := json.Unmarshal(head, &res); err != nil {
		return res, err
	}
	out := body[len(head):]
	res.Stdout, res.Stderr = string(out[:nOut]), string(out[nOut:])
	return res, nil
}

// Writer sends what is written to it to the host's stdout or stderr.
type Writer struct{ FD int }

// maxChunk keeps each host call's copy bounded; the host streams chunks.
const maxChunk = 1 << 20

func (w Writer) Write(p []byte) (int, error) {
	if !available {
		return 0, ErrNoHost
	}
	for rest := p; len(rest) > 0; {
		n := min(len(rest), maxChunk)
		output(w.FD, rest[:n])
		rest = rest[n:]
	}
	return len(p), nil
}

// Tools implements hostapi.Tools over the host functions.
type Tools struct {
	list []wire.ToolInfo

	mu    sync.Mutex
	stash map[int64]wire.ToolAnswer
}

// NewTools returns the host-backed Tools for the registered tools.
func NewTools(list []wire.ToolInfo) *Tools {
	return &Tools{list: list, stash: map[int64]wire.ToolAnswer{}}
}

func (t *Tools) List() []wire.ToolInfo { return t.list }

func (t *Tools) Submit(method string, params json.RawMessage) int64 {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	req, err := json.Marshal(wire.ToolRequest{Method: method, Params: params})
	if err != nil {
		req, _ = json.Marshal(wire.ToolRequest{Method: method, Params: json.RawMessage("null")})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return toolSubmit(req)
}

// Next blocks until an answer to one of ids is in. Answers to other ids
// (another language layer's calls) are stashed for their own Next.
func (t *Tools) Next(ids []int64) wire.ToolAnswer {
	a, _ := t.next(ids, time.Time{})
	return a
}

// next is Next that gives up at deadline (none when zero), reporting
// false then; an answer that comes later is stashed and never taken.
func (t *Tools) next(ids []int64, deadline time.Time) (wire.ToolAnswer, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		for _, id := range ids {
			if a, ok := t.stash[id]; ok {
				delete(t.stash, id)
				return a, true
			}
		}
		if !available || len(ids) == 0 {
			return wire.ToolAnswer{Error: "no pending tool call"}, true
		}
		var n int
		if deadline.IsZero() {
			n = toolWait(-1)
		} else {
			left := time.Until(deadline)
			if left <= 0 {
				return wire.ToolAnswer{}, false
			}
			n = toolWait(int64((left + time.Millisecond - 1) / time.Millisecond))
			if n == 0 {
				return wire.ToolAnswer{}, false
			}
		}
		if n <= 0 {
			return wire.ToolAnswer{Error: "tool call lost: the host has no pending answer"}, true
		}
		buf := make([]byte, n)
		toolTake(buf)
		a, err := decodeAnswer(buf)
		if err != nil {
			return wire.ToolAnswer{Error: "tool call answer undecodable: " + err.Error()}, true
		}
		t.stash[a.ID] = a
	}
}

// Do makes one HTTP request through the host (hostapi.HTTP): a tool
// request of method wire.MethodHTTP. It works whether or not the sandbox
// has tools. ctx's deadline bounds the wait; its answer, when it comes
// later, is stashed and dropped.
func (t *Tools) Do(ctx context.Context, req wire.HTTPRequest) (wire.HTTPResponse, error) {
	if err := ctx.Err(); err != nil {
		return wire.HTTPResponse{}, err
	}
	params, err := hostapi.EncodeHTTPRequest(req)
	if err != nil {
		return wire.HTTPResponse{}, err
	}
	id := t.Submit(wire.MethodHTTP, params)
	deadline, _ := ctx.Deadline()
	a, ok := t.next([]int64{id}, deadline)
	if !ok {
		return wire.HTTPResponse{}, context.DeadlineExceeded
	}
	return hostapi.DecodeHTTPAnswer(a)
}

// decodeAnswer splits a framed answer: header JSON, newline, raw result.
func decodeAnswer(buf []byte) (wire.ToolAnswer, error) {
	header, result, _ := bytes.Cut(buf, []byte{'\n'})
	var h wire.AnswerHeader
	if err := json.Unmarshal(header, &h); err != nil {
		return wire.ToolAnswer{}, err
	}
	a := wire.ToolAnswer{ID: h.ID, OK: h.OK, Code: h.Code, Error: h.Error}
	if h.OK || len(result) > 0 {
		// A failed answer may carry details too (an HTTP request's
		// wire.HTTPRefusal).
		a.Result = json.RawMessage(result)
	}
	return a, nil
}

// Warm fills encoding/json's per-type caches (field lists, encoders and
// decoders, built by reflection on first use) for every message a run
// exchanges with the host. A reactor calls it in amla_init: the host
// snapshots the instance after that, so no run pays for building them
// again (they were a third of a warm `echo 1`).
func Warm() {
	warmJSON(&wire.Input{Tools: []wire.ToolInfo{{Name: "t", InputSchema: json.RawMessage("{}")}}})
	warmJSON(&wire.ToolRequest{Method: "m", Params: json.RawMessage("{}")})
	warmJSON(&wire.AnswerHeader{})
	warmJSON(&wire.SpawnRequest{})
	warmJSON(&wire.SpawnResult{})
	warmJSON(&wire.HTTPRequest{Headers: [][2]string{{"a", "b"}}, Body: []byte("x")})
	warmJSON(&wire.HTTPResponse{Headers: [][2]string{{"a", "b"}}, Body: []byte("x")})
	warmJSON(&wire.HTTPRefusal{})
}

// warmJSON encodes v and decodes the result into a new value of v's type.
func warmJSON[T any](v *T) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hostcall: warming JSON for %T: %v", v, err))
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		panic(fmt.Sprintf("hostcall: warming JSON for %T: %v", v, err))
	}
}
