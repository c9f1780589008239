package capability

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strings"
)

// The value model mirrors what Python's json.loads produces:
//
//	None   → nil
//	bool   → bool
//	int    → *big.Int (any size; never a float)
//	float  → float64 (including NaN and ±Inf)
//	str    → string
//	list   → List
//	dict   → *Object (keys in insertion order)
//
// Values built by ParseJSON are already in this form. Go callers may also
// pass ordinary Go values (int, float32, []any, map[string]any,
// json.Number, ...); Normalize converts them.

// List is a JSON array (a Python list).
type List []any

// Object is a JSON object (a Python dict): string keys in first-insertion
// order. A repeated key keeps its first position and takes the last value,
// as a Python dict built by json.loads does.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// Set adds key or replaces its value in place.
func (o *Object) Set(key string, v any) {
	if i, ok := o.find(key); ok {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > 8 {
		o.index = make(map[string]int, len(o.keys))
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

// Get returns the value stored under key.
func (o *Object) Get(key string) (any, bool) {
	i, ok := o.find(key)
	if !ok {
		return nil, false
	}
	return o.vals[i], true
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in order (a copy).
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

func (o *Object) find(key string) (int, bool) {
	if o.index != nil {
		i, ok := o.index[key]
		return i, ok
	}
	for i, k := range o.keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

// Normalize converts Go values into the value model. Values already in the
// model are returned as they are (not walked), so it is cheap to call on
// parsed JSON.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, float64, *big.Int, List, *Object:
		return v, nil
	case int:
		return big.NewInt(int64(x)), nil
	case int8:
		return big.NewInt(int64(x)), nil
	case int16:
		return big.NewInt(int64(x)), nil
	case int32:
		return big.NewInt(int64(x)), nil
	case int64:
		return big.NewInt(x), nil
	case uint:
		return new(big.Int).SetUint64(uint64(x)), nil
	case uint8:
		return big.NewInt(int64(x)), nil
	case uint16:
		return big.NewInt(int64(x)), nil
	case uint32:
		return big.NewInt(int64(x)), nil
	case uint64:
		return new(big.Int).SetUint64(x), nil
	case float32:
		return float64(x), nil
	case big.Int:
		return new(big.Int).Set(&x), nil
	case json.Number:
		return ParseJSON([]byte(x))
	case json.RawMessage:
		return ParseJSON(x)
	case []any:
		out := make(List, len(x))
		for i, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case []string:
		out := make(List, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := NewObject()
		for _, k := range keys {
			n, err := Normalize(x[k])
			if err != nil {
				return nil, err
			}
			o.Set(k, n)
		}
		return o, nil
	}
	return nil, fmt.Errorf("capability: cannot use Go value of type %s as a JSON value", reflect.TypeOf(v))
}

// mustNormalize is Normalize for values that come from this package's own
// decoders or from Go literals in constraints; an unconvertible value is
// kept as it is and then compares unequal to everything.
func mustNormalize(v any) any {
	n, err := Normalize(v)
	if err != nil {
		return v
	}
	return n
}

// TypeName is the Python type name of a model value.
func TypeName(v any) string {
	switch mustNormalize(v).(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case List:
		return "list"
	case *Object:
		return "dict"
	}
	return reflect.TypeOf(v).String()
}

// isNumber reports whether v takes part in numeric comparison (bool does:
// Python's bool is a subclass of int).
func isNumber(v any) bool {
	switch v.(type) {
	case bool, *big.Int, float64:
		return true
	}
	return false
}

var (
	bigZero = big.NewInt(0)
	bigOne  = big.NewInt(1)
)

// numCompare compares two numbers exactly, as Python does (an int and a
// float are compared by value, not after rounding the int). ok is false
// when either side is NaN (every comparison with NaN is False).
func numCompare(a, b any) (c int, ok bool) {
	fa, aIsFloat := a.(float64)
	fb, bIsFloat := b.(float64)
	switch {
	case aIsFloat && bIsFloat:
		if math.IsNaN(fa) || math.IsNaN(fb) {
			return 0, false
		}
		switch {
		case fa < fb:
			return -1, true
		case fa > fb:
			return 1, true
		}
		return 0, true
	case aIsFloat:
		c, ok := intFloatCompare(asBigInt(b), fa)
		return -c, ok
	case bIsFloat:
		return intFloatCompare(asBigInt(a), fb)
	}
	return asBigInt(a).Cmp(asBigInt(b)), true
}

func asBigInt(v any) *big.Int {
	switch x := v.(type) {
	case bool:
		if x {
			return bigOne
		}
		return bigZero
	case *big.Int:
		return x
	}
	return bigZero
}

// intFloatCompare compares the int i with the float f (f compared to i,
// reversed: it returns the sign of i - f).
func intFloatCompare(i *big.Int, f float64) (int, bool) {
	switch {
	case math.IsNaN(f):
		return 0, false
	case math.IsInf(f, 1):
		return -1, true
	case math.IsInf(f, -1):
		return 1, true
	}
	// Both conversions are exact: SetInt widens the precision to the int's
	// bit length, SetFloat64 keeps 53 bits.
	bi := new(big.Float).SetInt(i)
	bf := new(big.Float).SetFloat64(f)
	return bi.Cmp(bf), true
}

// pyEqual is Python's == on model values: numbers by value across
// bool/int/float, NaN unequal to everything, deep for lists and dicts, and
// False between different kinds. It walks nested values with an explicit
// stack, so any depth is safe.
func pyEqual(a, b any) bool {
	type pair struct{ a, b any }
	stack := []pair{{mustNormalize(a), mustNormalize(b)}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := p.a, p.b
		if isNumber(x) && isNumber(y) {
			c, ok := numCompare(x, y)
			if !ok || c != 0 {
				return false
			}
			continue
		}
		switch xv := x.(type) {
		case nil:
			if y != nil {
				return false
			}
		case string:
			yv, ok := y.(string)
			if !ok || xv != yv {
				return false
			}
		case List:
			yv, ok := y.(List)
			if !ok || len(xv) != len(yv) {
				return false
			}
			for i := len(xv) - 1; i >= 0; i-- {
				stack = append(stack, pair{mustNormalize(xv[i]), mustNormalize(yv[i])})
			}
		case *Object:
			yv, ok := y.(*Object)
			if !ok || xv.Len() != yv.Len() {
				return false
			}
			for i, k := range xv.keys {
				w, ok := yv.Get(k)
				if !ok {
					return false
				}
				stack = append(stack, pair{mustNormalize(xv.vals[i]), mustNormalize(w)})
			}
		default:
			return false
		}
	}
	return true
}

// strictLess is the strict ordering of docs/capabilities.md ("Ordering"): numbers numerically (bool
// included), strings by code point, anything else False.
func strictLess(a, b any) bool {
	a, b = mustNormalize(a), mustNormalize(b)
	if isNumber(a) && isNumber(b) {
		c, ok := numCompare(a, b)
		return ok && c < 0
	}
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		// Byte order of UTF-8 (and of the WTF-8 the parser uses for lone
		// surrogates) is code-point order.
		return strings.Compare(as, bs) < 0
	}
	return false
}

// lessOrEqual is "equal or strictly less" (le/ge and subsumption bounds).
func lessOrEqual(a, b any) bool { return pyEqual(a, b) || strictLess(a, b) }

// contains reports whether some element of values equals v.
func containsValue(values []any, v any) bool {
	for _, e := range values {
		if pyEqual(v, e) {
			return true
		}
	}
	return false
}
