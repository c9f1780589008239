package applets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/itchyny/gojq"
)

// jqKeyOrder gives jq's key order to gojq's output. gojq keeps objects in
// Go maps and so prints their keys sorted; jq keeps them in insertion order,
// and scripts (and people) read jq's order. We cannot change gojq, so we
// remember where orders come from and re-apply them when printing:
//
//   - every object decoded from input keeps its key order, found again by
//     map identity (gojq passes unchanged objects through as the same map);
//   - an object the filter built ({name: .n, id: .i}) takes the key order of
//     the object construction in the filter with the same keys;
//   - any other object orders its keys by where they were first seen in the
//     input, then in the filter's constructions, then alphabetically.
//
// This matches jq for passed-through, selected, constructed and updated
// objects (updates append new keys, as jq does).
type jqKeyOrder struct {
	// inputs maps a decoded object (by map pointer) to its keys in order;
	// the map itself is kept so its address cannot be reused.
	inputs map[uintptr]orderedMap
	// constructions are the key lists of the filter's object constructions.
	constructions [][]string
	// rank is the global first-seen position of each key.
	rank map[string]int
}

type orderedMap struct {
	m    map[string]any
	keys []string
}

func newJQKeyOrder(q *gojq.Query) *jqKeyOrder {
	o := &jqKeyOrder{inputs: map[uintptr]orderedMap{}, rank: map[string]int{}}
	if q != nil {
		o.collect(reflect.ValueOf(q))
	}
	for _, keys := range o.constructions {
		for _, k := range keys {
			o.see(k)
		}
	}
	return o
}

// see gives key a rank if it has none yet.
func (o *jqKeyOrder) see(key string) {
	if _, ok := o.rank[key]; !ok {
		o.rank[key] = len(o.rank)
	}
}

// collect walks the parsed filter and records each object construction's
// constant keys.
func (o *jqKeyOrder) collect(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			if obj, ok := v.Interface().(*gojq.Object); ok {
				var keys []string
				for _, kv := range obj.KeyVals {
					switch {
					case kv.Key != "":
						keys = append(keys, strings.TrimPrefix(kv.Key, "$"))
					case kv.KeyString != nil && len(kv.KeyString.Queries) == 0:
						keys = append(keys, kv.KeyString.Str)
					}
				}
				if len(keys) > 0 {
					o.constructions = append(o.constructions, keys)
				}
			}
			o.collect(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				o.collect(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			o.collect(v.Index(i))
		}
	}
}

// forget drops the remembered input objects (after each input is done).
func (o *jqKeyOrder) forget() {
	clear(o.inputs)
}

// decode reads one JSON value from dec, remembering the key order of every
// object in it. Numbers stay json.Number, so big integers and decimals are
// printed as written.
func (o *jqKeyOrder) decode(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return o.value(dec, tok)
}

// token reads a token inside a value, where the end of input is an error.
func token(dec *json.Decoder) (json.Token, error) {
	t, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return t, err
}

// inner reads a value nested in an array or object.
func (o *jqKeyOrder) inner(dec *json.Decoder) (any, error) {
	tok, err := token(dec)
	if err != nil {
		return nil, err
	}
	return o.value(dec, tok)
}

func (o *jqKeyOrder) value(dec *json.Decoder, tok json.Token) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := o.inner(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := token(dec); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			m := map[string]any{}
			var keys []string
			for dec.More() {
				kt, err := token(dec)
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				v, err := o.inner(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := m[k]; !dup {
					keys = append(keys, k)
				}
				m[k] = v
				o.see(k)
			}
			if _, err := token(dec); err != nil {
				return nil, err
			}
			o.inputs[reflect.ValueOf(m).Pointer()] = orderedMap{m, keys}
			return m, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// keys returns m's keys in jq's order.
func (o *jqKeyOrder) keys(m map[string]any) []string {
	if om, ok := o.inputs[reflect.ValueOf(m).Pointer()]; ok && len(om.keys) == len(m) {
		return om.keys
	}
	// The construction with exactly these keys, else one covering them.
	var cover []string
	for _, c := range o.constructions {
		if len(c) < len(m) {
			continue
		}
		all := true
		for k := range m {
			if !slices.Contains(c, k) {
				all = false
				break
			}
		}
		if all && len(c) == len(m) {
			return c
		}
		if all && cover == nil {
			cover = c
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	pos := func(k string) (int, bool) {
		if cover != nil {
			if i := slices.Index(cover, k); i >= 0 {
				return i, true
			}
			return 0, false
		}
		r, ok := o.rank[k]
		return r, ok
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, oki := pos(keys[i])
		pj, okj := pos(keys[j])
		switch {
		case oki && okj:
			return pi < pj
		case oki != okj:
			return oki
		}
		return keys[i] < keys[j]
	})
	return keys
}

// encode writes v as JSON: compact when indent is "", else pretty with
// indent per level, like jq.
func (o *jqKeyOrder) encode(b *bytes.Buffer, v any, indent string, level int) error {
	newline := func(l int) {
		if indent != "" {
			b.WriteByte('\n')
			for i := 0; i < l; i++ {
				b.WriteString(indent)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range o.keys(v) {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			kb, err := gojq.Marshal(k)
			if err != nil {
				return err
			}
			b.Write(kb)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			if err := o.encode(b, v[k], indent, level+1); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			if err := o.encode(b, e, indent, level+1); err != nil {
				return err
			}
		}
		newline(level)
		b.WriteByte(']')
	default:
		sb, err := gojq.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(sb)
	}
	return nil
}
