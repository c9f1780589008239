package wasmsnap

import (
	"fmt"
	"math"
)

// ValType is a numeric WebAssembly value type, by its binary encoding.
type ValType byte

// The value types a captured global can have.
const (
	I32 ValType = typeI32
	I64 ValType = typeI64
	F32 ValType = typeF32
	F64 ValType = typeF64
)

func (t ValType) String() string { return typeName(byte(t)) }

// Value is the value of a global: its type and its bits (an i32 or f32 in
// the low 32 bits). The zero Value stands for a global that was not captured
// (an immutable global of a non-numeric type).
type Value struct {
	Type ValType
	Bits uint64
}

// ValueI32 and friends build Values.
func ValueI32(v int32) Value   { return Value{I32, uint64(uint32(v))} }
func ValueI64(v int64) Value   { return Value{I64, uint64(v)} }
func ValueF32(v float32) Value { return Value{F32, uint64(math.Float32bits(v))} }
func ValueF64(v float64) Value { return Value{F64, math.Float64bits(v)} }

func (v Value) String() string {
	switch v.Type {
	case I32:
		return fmt.Sprintf("i32:%d", int32(v.Bits))
	case I64:
		return fmt.Sprintf("i64:%d", int64(v.Bits))
	case F32:
		return fmt.Sprintf("f32:%v", math.Float32frombits(uint32(v.Bits)))
	case F64:
		return fmt.Sprintf("f64:%v", math.Float64frombits(v.Bits))
	case 0:
		return "uncaptured"
	}
	return fmt.Sprintf("invalid(type 0x%02x)", byte(v.Type))
}

// constExpr encodes v as a constant expression (end opcode included). Floats
// are written bit for bit, so NaN payloads survive.
func (v Value) constExpr() ([]byte, error) {
	switch v.Type {
	case I32:
		return append(appendSLEB([]byte{0x41}, int64(int32(uint32(v.Bits)))), 0x0b), nil
	case I64:
		return append(appendSLEB([]byte{0x42}, int64(v.Bits)), 0x0b), nil
	case F32:
		b := uint32(v.Bits)
		return []byte{0x43, byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), 0x0b}, nil
	case F64:
		out := []byte{0x44}
		for i := 0; i < 8; i++ {
			out = append(out, byte(v.Bits>>(8*i)))
		}
		return append(out, 0x0b), nil
	}
	return nil, fmt.Errorf("value of type 0x%02x cannot be encoded", byte(v.Type))
}
