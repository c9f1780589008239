package wasmsnap

import (
	"bytes"
	"fmt"
)

// Section ids of the core WebAssembly binary format.
const (
	secCustom    = 0
	secType      = 1
	secImport    = 2
	secFunction  = 3
	secTable     = 4
	secMemory    = 5
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secCode      = 10
	secData      = 11
	secDataCount = 12
	secTag       = 13
)

var sectionNames = map[byte]string{
	secCustom: "custom", secType: "type", secImport: "import", secFunction: "function",
	secTable: "table", secMemory: "memory", secGlobal: "global", secExport: "export",
	secStart: "start", secElement: "element", secCode: "code", secData: "data",
	secDataCount: "datacount", secTag: "tag",
}

// sectionRank is the position a non-custom section must take in a module.
var sectionRank = map[byte]int{
	secType: 1, secImport: 2, secFunction: 3, secTable: 4, secMemory: 5, secTag: 6,
	secGlobal: 7, secExport: 8, secStart: 9, secElement: 10, secDataCount: 11,
	secCode: 12, secData: 13,
}

// Export kinds.
const (
	kindFunc   = 0
	kindTable  = 1
	kindMemory = 2
	kindGlobal = 3
	kindTag    = 4
)

var wasmHeader = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}

// section is one section of a module; off is the offset of its body in the module.
type section struct {
	id   byte
	off  int
	body []byte
}

func (s section) name() string {
	if n, ok := sectionNames[s.id]; ok {
		return n
	}
	return fmt.Sprintf("unknown(%d)", s.id)
}

// reader walks a byte slice; base is the module offset of buf[0], so errors can
// name where in the module the problem is.
type reader struct {
	buf  []byte
	pos  int
	base int
	what string // the section being read, for errors
}

func (r *reader) off() int { return r.base + r.pos }

func (r *reader) errorf(format string, a ...any) error {
	return fmt.Errorf("%s section at offset %d: %s", r.what, r.off(), fmt.Sprintf(format, a...))
}

func (r *reader) done() bool { return r.pos >= len(r.buf) }

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.buf) {
		return 0, r.errorf("unexpected end")
	}
	c := r.buf[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.buf)-r.pos) {
		return nil, r.errorf("%d bytes wanted, %d left", n, len(r.buf)-r.pos)
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *reader) uleb(bits uint) (uint64, error) {
	v, n, err := readULEB(r.buf[r.pos:], bits)
	if err != nil {
		return 0, r.errorf("%v", err)
	}
	r.pos += n
	return v, nil
}

func (r *reader) u32() (uint32, error) {
	v, err := r.uleb(32)
	return uint32(v), err
}

func (r *reader) sleb(bits uint) (int64, error) {
	v, n, err := readSLEB(r.buf[r.pos:], bits)
	if err != nil {
		return 0, r.errorf("%v", err)
	}
	r.pos += n
	return v, nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(uint64(n))
	return string(b), err
}

// splitSections checks the header and cuts a module into its sections.
func splitSections(wasm []byte) ([]section, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], wasmHeader[:4]) {
		return nil, fmt.Errorf("not a WebAssembly binary (no \\0asm magic)")
	}
	if !bytes.Equal(wasm[4:8], wasmHeader[4:8]) {
		return nil, fmt.Errorf("unsupported WebAssembly version/layer % x (only core modules of version 1; components are not supported)", wasm[4:8])
	}
	r := &reader{buf: wasm, pos: 8, what: "module"}
	var out []section
	lastRank := 0
	for !r.done() {
		start := r.off()
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, fmt.Errorf("section header at offset %d: %w", start, err)
		}
		bodyOff := r.off()
		body, err := r.bytes(uint64(size))
		if err != nil {
			return nil, fmt.Errorf("section %d at offset %d: size %d runs past the end of the module", id, start, size)
		}
		s := section{id: id, off: bodyOff, body: body}
		if id != secCustom {
			rank, ok := sectionRank[id]
			if !ok {
				return nil, fmt.Errorf("section at offset %d: unknown section id %d", start, id)
			}
			if rank <= lastRank {
				return nil, fmt.Errorf("%s section at offset %d: out of order or repeated", s.name(), start)
			}
			lastRank = rank
		}
		out = append(out, s)
	}
	return out, nil
}

// appendSection appends a section with the given id and body.
func appendSection(dst []byte, id byte, body []byte) []byte {
	dst = append(dst, id)
	dst = appendULEB(dst, uint64(len(body)))
	return append(dst, body...)
}

// Value types.
const (
	typeI32       = 0x7f
	typeI64       = 0x7e
	typeF32       = 0x7d
	typeF64       = 0x7c
	typeV128      = 0x7b
	typeFuncref   = 0x70
	typeExternref = 0x6f
	typeRef       = 0x64 // (ref ht), typed function references / GC
	typeRefNull   = 0x63 // (ref null ht)
)

// valType reads a value type and returns its raw encoding; for the
// reference types with a heap type, first is 0x63/0x64.
func (r *reader) valType() (first byte, raw []byte, err error) {
	start := r.pos
	c, err := r.byte()
	if err != nil {
		return 0, nil, err
	}
	switch c {
	case typeI32, typeI64, typeF32, typeF64, typeV128, typeFuncref, typeExternref,
		0x6e, 0x6d, 0x6c, 0x6b, 0x6a, 0x69, 0x71, 0x72, 0x73, 0x74: // abstract heap-type shorthands
	case typeRef, typeRefNull:
		if _, err := r.sleb(33); err != nil {
			return 0, nil, err
		}
	default:
		r.pos = start
		return 0, nil, r.errorf("unknown value type 0x%02x", c)
	}
	return c, r.buf[start:r.pos], nil
}

func typeName(t byte) string {
	switch t {
	case typeI32:
		return "i32"
	case typeI64:
		return "i64"
	case typeF32:
		return "f32"
	case typeF64:
		return "f64"
	case typeV128:
		return "v128"
	case typeFuncref:
		return "funcref"
	case typeExternref:
		return "externref"
	default:
		return fmt.Sprintf("reftype(0x%02x)", t)
	}
}

func isNumeric(t byte) bool {
	return t == typeI32 || t == typeI64 || t == typeF32 || t == typeF64
}

// constExpr reads a constant expression up to and including its end
// opcode and returns its raw bytes. It knows the MVP constants, global.get,
// references, v128.const and the extended-const arithmetic.
func (r *reader) constExpr() ([]byte, error) {
	start := r.pos
	for {
		at := r.off()
		op, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x0b: // end
			return r.buf[start:r.pos], nil
		case 0x41: // i32.const
			_, err = r.sleb(32)
		case 0x42: // i64.const
			_, err = r.sleb(64)
		case 0x43: // f32.const
			_, err = r.bytes(4)
		case 0x44: // f64.const
			_, err = r.bytes(8)
		case 0x23: // global.get
			_, err = r.u32()
		case 0xd0: // ref.null heaptype
			_, err = r.sleb(33)
		case 0xd2: // ref.func
			_, err = r.u32()
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // i32/i64 add, sub, mul (extended-const)
		case 0xfd: // v128.const
			var sub uint32
			if sub, err = r.u32(); err == nil {
				if sub != 12 {
					return nil, fmt.Errorf("%s section at offset %d: SIMD opcode %d in a constant expression is not supported", r.what, at, sub)
				}
				_, err = r.bytes(16)
			}
		default:
			return nil, fmt.Errorf("%s section at offset %d: opcode 0x%02x in a constant expression is not supported", r.what, at, op)
		}
		if err != nil {
			return nil, err
		}
	}
}

// limits of a memory: flags 0 (min) or 1 (min, max); others are rejected.
type limits struct {
	min, max uint64
	hasMax   bool
}

func (r *reader) memLimits() (limits, error) {
	at := r.off()
	flags, err := r.byte()
	if err != nil {
		return limits{}, err
	}
	switch {
	case flags&0x04 != 0:
		return limits{}, fmt.Errorf("%s section at offset %d: memory64 is not supported", r.what, at)
	case flags&0x02 != 0:
		return limits{}, fmt.Errorf("%s section at offset %d: shared memory is not supported", r.what, at)
	case flags&^0x01 != 0:
		return limits{}, fmt.Errorf("%s section at offset %d: memory limits flags 0x%02x are not supported", r.what, at, flags)
	}
	var l limits
	if l.min, err = r.uleb(32); err != nil {
		return l, err
	}
	if flags&0x01 != 0 {
		l.hasMax = true
		if l.max, err = r.uleb(32); err != nil {
			return l, err
		}
		if l.max < l.min {
			return l, fmt.Errorf("%s section at offset %d: memory minimum %d is above its maximum %d", r.what, at, l.min, l.max)
		}
	}
	if l.min > maxPages || l.max > maxPages {
		return l, fmt.Errorf("%s section at offset %d: memory limits above %d pages", r.what, at, maxPages)
	}
	return l, nil
}

func appendMemLimits(dst []byte, l limits) []byte {
	if l.hasMax {
		dst = append(dst, 0x01)
		dst = appendULEB(dst, l.min)
		return appendULEB(dst, l.max)
	}
	dst = append(dst, 0x00)
	return appendULEB(dst, l.min)
}

// skipTableLimits skips a table type's limits (flags 0/1, or the table64 forms).
func (r *reader) skipTableLimits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	bits := uint(32)
	if flags&0x04 != 0 {
		bits = 64
	}
	if _, err := r.uleb(bits); err != nil {
		return err
	}
	if flags&0x01 != 0 {
		_, err = r.uleb(bits)
	}
	return err
}

type global struct {
	typ     byte   // first byte of the value type
	rawType []byte // full encoding of the value type
	mutable bool
	init    []byte // constant expression, end opcode included
}

type export struct {
	name  string
	kind  byte
	index uint32
}

type dataSeg struct {
	passive bool
	raw     []byte // the whole entry as encoded
}

type funcImport struct {
	module, name string
	typeIndex    uint32
}

// module is what this package needs to know about a module.
type module struct {
	sections        []section
	funcImports     []funcImport
	importedGlobals uint32
	importedMems    int
	globals         []global
	memories        []limits
	exports         []export
	data            []dataSeg
	hasDataCount    bool
}

func parseModule(wasm []byte) (*module, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	m := &module{sections: secs}
	for _, s := range secs {
		r := &reader{buf: s.body, base: s.off, what: s.name()}
		switch s.id {
		case secImport:
			err = m.parseImports(r)
		case secMemory:
			err = m.parseMemories(r)
		case secGlobal:
			err = m.parseGlobals(r)
		case secExport:
			err = m.parseExports(r)
		case secData:
			err = m.parseData(r)
		case secDataCount:
			m.hasDataCount = true
		}
		if err != nil {
			return nil, err
		}
		parsed := s.id == secImport || s.id == secMemory || s.id == secGlobal || s.id == secExport || s.id == secData
		if parsed && !r.done() {
			return nil, r.errorf("%d trailing bytes", len(r.buf)-r.pos)
		}
	}
	return m, nil
}

func (m *module) parseImports(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		at := r.off()
		mod, err := r.name()
		if err != nil {
			return err
		}
		field, err := r.name()
		if err != nil {
			return err
		}
		kind, err := r.byte()
		if err != nil {
			return err
		}
		switch kind {
		case kindFunc:
			var ti uint32
			if ti, err = r.u32(); err == nil {
				m.funcImports = append(m.funcImports, funcImport{module: mod, name: field, typeIndex: ti})
			}
		case kindTable:
			if _, _, err = r.valType(); err == nil {
				err = r.skipTableLimits()
			}
		case kindMemory:
			m.importedMems++
			_, err = r.memLimits()
			if err == nil {
				return fmt.Errorf("import section at offset %d: memory imported from %q %q: an imported memory cannot be snapshotted", at, mod, field)
			}
		case kindGlobal:
			m.importedGlobals++
			if _, _, err = r.valType(); err == nil {
				_, err = r.byte()
			}
		case kindTag:
			if _, err = r.byte(); err == nil {
				_, err = r.u32()
			}
		default:
			return fmt.Errorf("import section at offset %d: unknown import kind 0x%02x for %q %q", at, kind, mod, field)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (m *module) parseMemories(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		l, err := r.memLimits()
		if err != nil {
			return err
		}
		m.memories = append(m.memories, l)
	}
	return nil
}

func (m *module) parseGlobals(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		var g global
		if g.typ, g.rawType, err = r.valType(); err != nil {
			return err
		}
		mut, err := r.byte()
		if err != nil {
			return err
		}
		if mut > 1 {
			return r.errorf("global %d: mutability byte 0x%02x", i, mut)
		}
		g.mutable = mut == 1
		if g.init, err = r.constExpr(); err != nil {
			return err
		}
		m.globals = append(m.globals, g)
	}
	return nil
}

func (m *module) parseExports(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		var e export
		if e.name, err = r.name(); err != nil {
			return err
		}
		if e.kind, err = r.byte(); err != nil {
			return err
		}
		if e.index, err = r.u32(); err != nil {
			return err
		}
		m.exports = append(m.exports, e)
	}
	return nil
}

func (m *module) parseData(r *reader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		start := r.pos
		at := r.off()
		flags, err := r.u32()
		if err != nil {
			return err
		}
		var seg dataSeg
		switch flags {
		case 0:
			_, err = r.constExpr()
		case 1:
			seg.passive = true
		case 2:
			var mem uint32
			if mem, err = r.u32(); err == nil {
				if mem != 0 {
					return fmt.Errorf("data section at offset %d: segment %d targets memory %d; only memory 0 is supported", at, i, mem)
				}
				_, err = r.constExpr()
			}
		default:
			return fmt.Errorf("data section at offset %d: segment %d has unknown flags %d", at, i, flags)
		}
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		if _, err := r.bytes(uint64(size)); err != nil {
			return err
		}
		seg.raw = r.buf[start:r.pos]
		m.data = append(m.data, seg)
	}
	return nil
}

// checkMemory rejects the memory layouts a snapshot cannot represent.
func (m *module) checkMemory() error {
	if m.importedMems > 0 {
		return fmt.Errorf("the module imports its memory; only a module that defines its one memory can be snapshotted")
	}
	switch len(m.memories) {
	case 0:
		return fmt.Errorf("the module defines no memory")
	case 1:
		return nil
	default:
		return fmt.Errorf("the module defines %d memories; only one is supported", len(m.memories))
	}
}

// encodeExports builds an export section body.
func encodeExports(exps []export) []byte {
	body := appendULEB(nil, uint64(len(exps)))
	for _, e := range exps {
		body = appendULEB(body, uint64(len(e.name)))
		body = append(body, e.name...)
		body = append(body, e.kind)
		body = appendULEB(body, uint64(e.index))
	}
	return body
}

// assemble writes a module from its sections, putting each section of
// replace in place of the section with the same id (nil bodies drop it) and
// inserting the ones the module did not have at their proper position.
func assemble(secs []section, replace map[byte][]byte) []byte {
	out := append([]byte(nil), wasmHeader...)
	done := map[byte]bool{}
	emitMissingBefore := func(rank int) {
		// insert replacements for absent sections whose rank is lower
		for r := 1; r < rank; r++ {
			for id, rk := range sectionRank {
				if rk != r || done[id] {
					continue
				}
				if body, ok := replace[id]; ok && body != nil {
					out = appendSection(out, id, body)
				}
				done[id] = true
			}
		}
	}
	for _, s := range secs {
		if s.id == secCustom {
			out = appendSection(out, s.id, s.body)
			continue
		}
		emitMissingBefore(sectionRank[s.id])
		done[s.id] = true
		if body, ok := replace[s.id]; ok {
			if body != nil {
				out = appendSection(out, s.id, body)
			}
			continue
		}
		out = appendSection(out, s.id, s.body)
	}
	emitMissingBefore(len(sectionRank) + 1)
	return out
}

// funcTypes reads the type section of a module whose types are all plain
// function types, as parameter and result value types.
func funcTypes(secs []section) ([][2][]byte, error) {
	for _, s := range secs {
		if s.id != secType {
			continue
		}
		r := &reader{buf: s.body, base: s.off, what: s.name()}
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		out := make([][2][]byte, 0, n)
		for i := uint32(0); i < n; i++ {
			form, err := r.byte()
			if err != nil {
				return nil, err
			}
			if form != 0x60 {
				return nil, r.errorf("type %d has form 0x%02x; only plain function types are supported", i, form)
			}
			var ft [2][]byte
			for j := 0; j < 2; j++ {
				count, err := r.u32()
				if err != nil {
					return nil, err
				}
				for k := uint32(0); k < count; k++ {
					t, _, err := r.valType()
					if err != nil {
						return nil, err
					}
					ft[j] = append(ft[j], t)
				}
			}
			out = append(out, ft)
		}
		return out, nil
	}
	return nil, nil
}
