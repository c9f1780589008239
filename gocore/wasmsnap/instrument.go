package wasmsnap

import (
	"fmt"
	"strconv"
	"strings"
)

// Export names Instrument adds.
const (
	MemoryExport       = "__snap_memory"
	GlobalExportPrefix = "__snap_global_"
)

// ResetGlobalPrefix names the exports Rewrite adds to a snapshot: each
// defined mutable global as "__snap_reset_global_<i>", so that a host can
// put a used instance back into the snapshot's state (its memory and these
// globals) instead of making a new one.
const ResetGlobalPrefix = "__snap_reset_global_"

// ResetGlobalExport is the name under which a snapshot exports its
// defined mutable global i.
func ResetGlobalExport(i int) string { return ResetGlobalPrefix + strconv.Itoa(i) }

// GlobalExport is the name under which Instrument exports defined global i
// (counting only the globals the module defines, not imported ones).
func GlobalExport(i int) string { return GlobalExportPrefix + strconv.Itoa(i) }

// Instrument returns wasm with its memory exported as "__snap_memory" and
// every defined global of a numeric type exported as "__snap_global_<i>",
// i counting the module's own globals from 0, so that the state of an
// instance can be read from outside. Immutable globals of other types are
// not exported (they cannot change); a mutable one is an error, as is any
// module Rewrite could not snapshot.
func Instrument(wasm []byte) ([]byte, error) {
	m, err := parseModule(wasm)
	if err != nil {
		return nil, fmt.Errorf("wasmsnap: instrument: %w", err)
	}
	if err := m.checkSnapshottable(); err != nil {
		return nil, fmt.Errorf("wasmsnap: instrument: %w", err)
	}
	exps := append([]export(nil), m.exports...)
	exps = append(exps, export{name: MemoryExport, kind: kindMemory, index: 0})
	for i, g := range m.globals {
		if isNumeric(g.typ) {
			exps = append(exps, export{name: GlobalExport(i), kind: kindGlobal, index: m.importedGlobals + uint32(i)})
		}
	}
	return assemble(m.sections, map[byte][]byte{secExport: encodeExports(exps)}), nil
}

// checkSnapshottable rejects what neither Instrument nor Rewrite can handle.
func (m *module) checkSnapshottable() error {
	if err := m.checkMemory(); err != nil {
		return err
	}
	for _, e := range m.exports {
		if e.name == MemoryExport || strings.HasPrefix(e.name, GlobalExportPrefix) {
			return fmt.Errorf("export section: the module already exports %q (reserved for snapshots; was it instrumented already?)", e.name)
		}
	}
	for i, g := range m.globals {
		if g.mutable && !isNumeric(g.typ) {
			return fmt.Errorf("global section: defined global %d is a mutable %s; only numeric globals can be captured", i, typeName(g.typ))
		}
	}
	return nil
}
