package wasmsnap

import (
	"encoding/binary"
	"fmt"
	"strings"
)

const (
	pageSize = 65536
	maxPages = 65536 // 4 GiB, the limit of a 32-bit memory

	// MergeGap is the zero run below which two non-zero runs of memory share
	// one data segment: a segment costs about ten bytes of header, and fewer
	// segments parse faster.
	MergeGap = 256
	// MaxSegments bounds the data segments of a snapshot; engines refuse
	// modules with more than 100,000 (wasmparser's and the JS API's limit).
	MaxSegments = 100000
)

// Capture is the state of an initialised instance: its linear memory (a
// whole number of 64 KiB pages) and one Value per defined global, in order.
type Capture struct {
	Memory  []byte
	Globals []Value
}

// Rewrite returns the original (uninstrumented) module changed so that a
// fresh instance starts in the captured state:
//   - every defined mutable global is initialised to its captured value;
//   - memory 0's minimum is the captured size in pages;
//   - its active data segments give way to segments holding the non-zero
//     parts of the captured memory; passive segments are kept as they are.
//     When the module has a DataCount section (which code that uses
//     memory.init or data.drop must have), each original active segment
//     stays as an empty one, so that segment indices keep their meaning,
//     and the DataCount counts the new segments too; without one, no code
//     names a segment and the original active segments are simply dropped;
//   - the start section is removed, and so is the "_initialize" export,
//     which under the WASI reactor convention would have to be called
//     before anything else and must not run a second time;
//   - every defined mutable global is exported as
//     "__snap_reset_global_<i>" (ResetGlobalExport), so that a host can
//     reset a used instance to the snapshot's state: its memory as a fresh
//     instance has it, and these globals to their initial values.
//
// Custom sections are kept. Tables are not captured: an init that changes
// a table (table.set, table.grow) gives a wrong snapshot, and this cannot
// be detected here.
func Rewrite(wasm []byte, c Capture) ([]byte, error) {
	m, err := parseModule(wasm)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: rewrite: %w", err)
	}
	if err := m.checkSnapshottable(); err != nil {
		return nil, fmt.Errorf("wasmsnap: rewrite: %w", err)
	}
	replace := map[byte][]byte{}

	mem, err := m.memoryFor(c.Memory)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: rewrite: %w", err)
	}
	replace[secMemory] = appendMemLimits(appendULEB(nil, 1), mem)

	globals, err := m.encodeGlobals(c.Globals)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: rewrite: %w", err)
	}
	if globals != nil {
		replace[secGlobal] = globals
	}

	var exps []export
	for _, e := range m.exports {
		// A snapshot of a snapshot gets its reset exports anew below.
		if e.name != "_initialize" && !strings.HasPrefix(e.name, ResetGlobalPrefix) {
			exps = append(exps, e)
		}
	}
	for i, g := range m.globals {
		if g.mutable {
			exps = append(exps, export{name: ResetGlobalExport(i), kind: kindGlobal, index: m.importedGlobals + uint32(i)})
		}
	}
	if len(exps) == 0 {
		replace[secExport] = nil
	} else {
		replace[secExport] = encodeExports(exps)
	}
	replace[secStart] = nil

	// The original segments that stay: all of them (active ones emptied)
	// when code may name segments by index, else only the passive ones.
	var kept [][]byte
	for _, seg := range m.data {
		switch {
		case seg.passive:
			kept = append(kept, seg.raw)
		case m.hasDataCount:
			kept = append(kept, []byte{0x00, 0x41, 0x00, 0x0b, 0x00}) // active, offset 0, no bytes
		}
	}
	spans, err := planSegments(c.Memory, MergeGap, MaxSegments-len(kept))
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: rewrite: data section: %w", err)
	}
	count := len(kept) + len(spans)
	data := appendULEB(nil, uint64(count))
	for _, raw := range kept {
		data = append(data, raw...)
	}
	for _, s := range spans {
		data = append(data, 0x00, 0x41)
		data = appendSLEB(data, int64(int32(uint32(s.off))))
		data = append(data, 0x0b)
		data = appendULEB(data, uint64(s.end-s.off))
		data = append(data, c.Memory[s.off:s.end]...)
	}
	if count > 0 {
		replace[secData] = data
	} else {
		replace[secData] = nil
	}
	if m.hasDataCount {
		replace[secDataCount] = appendULEB(nil, uint64(count))
	}
	return assemble(m.sections, replace), nil
}

// memoryFor checks the captured memory against memory 0's limits and
// returns the limits of the snapshot.
func (m *module) memoryFor(mem []byte) (limits, error) {
	l := m.memories[0]
	if len(mem)%pageSize != 0 {
		return l, fmt.Errorf("captured memory is %d bytes, not a whole number of 64 KiB pages", len(mem))
	}
	pages := uint64(len(mem) / pageSize)
	if pages < l.min {
		return l, fmt.Errorf("captured memory has %d pages, fewer than the module's minimum of %d", pages, l.min)
	}
	if l.hasMax && pages > l.max {
		return l, fmt.Errorf("captured memory has %d pages, more than the module's maximum of %d", pages, l.max)
	}
	if pages > maxPages {
		return l, fmt.Errorf("captured memory has %d pages, more than a 32-bit memory can hold", pages)
	}
	l.min = pages
	return l, nil
}

// encodeGlobals builds the global section with mutable globals set to their
// captured values; nil when the module defines no globals.
func (m *module) encodeGlobals(vals []Value) ([]byte, error) {
	if len(vals) != len(m.globals) {
		return nil, fmt.Errorf("global section: %d captured values for %d defined globals", len(vals), len(m.globals))
	}
	if len(m.globals) == 0 {
		return nil, nil
	}
	body := appendULEB(nil, uint64(len(m.globals)))
	for i, g := range m.globals {
		v := vals[i]
		init := g.init
		switch {
		case g.mutable:
			if byte(v.Type) != g.typ {
				return nil, fmt.Errorf("global section: defined global %d is a mutable %s, captured value is %v", i, typeName(g.typ), v)
			}
			expr, err := v.constExpr()
			if err != nil {
				return nil, fmt.Errorf("global section: defined global %d: %w", i, err)
			}
			init = expr
		case v.Type != 0 && byte(v.Type) != g.typ:
			return nil, fmt.Errorf("global section: defined global %d is an immutable %s, captured value is %v", i, typeName(g.typ), v)
		}
		body = append(body, g.rawType...)
		if g.mutable {
			body = append(body, 1)
		} else {
			body = append(body, 0)
		}
		body = append(body, init...)
	}
	return body, nil
}

// span is a half-open byte range [off, end) of memory.
type span struct{ off, end int }

// planSegments covers every non-zero byte of mem with as few spans as it
// can while never bridging a zero run of gap bytes or more; when that gives
// more than max spans, it doubles the gap until they fit.
func planSegments(mem []byte, gap, max int) ([]span, error) {
	if max < 1 {
		if nextNonZero(mem, 0) == len(mem) {
			return nil, nil
		}
		return nil, fmt.Errorf("the module already has %d data segments, no room for the snapshot's", MaxSegments-max)
	}
	if gap < 1 {
		gap = 1
	}
	spans := nonZeroSpans(mem, gap)
	for len(spans) > max {
		gap *= 2
		spans = mergeSpans(spans, gap)
	}
	return spans, nil
}

// nonZeroSpans returns the runs of mem holding non-zero bytes, joined when
// the zeros between them are fewer than gap.
func nonZeroSpans(mem []byte, gap int) []span {
	var out []span
	i := nextNonZero(mem, 0)
	for i < len(mem) {
		end := nextZero(mem, i)
		if n := len(out); n > 0 && i-out[n-1].end < gap {
			out[n-1].end = end
		} else {
			out = append(out, span{i, end})
		}
		i = nextNonZero(mem, end)
	}
	return out
}

// mergeSpans joins neighbouring spans separated by fewer than gap bytes.
func mergeSpans(spans []span, gap int) []span {
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.off-out[n-1].end < gap {
			out[n-1].end = s.end
		} else {
			out = append(out, s)
		}
	}
	return out
}

// nextNonZero returns the index of the first non-zero byte at or after i,
// or len(mem); it skips zero memory eight bytes at a time.
func nextNonZero(mem []byte, i int) int {
	for i < len(mem) && i%8 != 0 {
		if mem[i] != 0 {
			return i
		}
		i++
	}
	for i+8 <= len(mem) && binary.LittleEndian.Uint64(mem[i:]) == 0 {
		i += 8
	}
	for i < len(mem) && mem[i] == 0 {
		i++
	}
	return i
}

// nextZero returns the index of the first zero byte at or after i, or len(mem).
func nextZero(mem []byte, i int) int {
	for i < len(mem) && mem[i] != 0 {
		i++
	}
	return i
}
