package jsrt

import (
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// instrument adds the depth countdown (recursion.go) to the functions of
// the user's code (AST positions in [from, to)) that may take part in a
// recursion. globals are the names the global object has before user code
// runs (builtins, prelude, tools).
//
// The countdown is not free (about 40-70% on a body as small as fib's), so
// it goes only where a recursion cycle must pass: every cycle of calls
// contains a function that calls a user function, a user method, a
// function value of unknown origin, or hands a user function to a
// built-in (map(walk)). A function whose calls all go to globals (Math,
// JSON, console, tools) or to methods of data (arr.push, s.trim) cannot
// close a cycle by itself and is left alone. Functions the engine calls
// implicitly (getters, setters, toString, valueOf, toJSON,
// Symbol.toPrimitive, Proxy traps) are always instrumented: they recurse
// without a call expression (get x() { return this.x }).
func instrument(prg *ast.Program, from, to int, globals map[string]bool) {
	names := collectNames(prg)
	w := &instrumenter{
		from: file.Idx(from), to: file.Idx(to),
		seen:      map[uintptr]bool{},
		accessors: map[*ast.FunctionLiteral]bool{},
		names:     names,
		globals:   globals,
	}
	w.walk(reflect.ValueOf(prg))
}

type instrumenter struct {
	from, to file.Idx
	stack    []*funcInfo
	// seen guards against visiting a node twice: the parser shares some
	// nodes (a function's DeclarationList points at its var bindings).
	seen map[uintptr]bool
	// accessors are the functions the engine may call implicitly.
	accessors map[*ast.FunctionLiteral]bool
	names     *userNames
	globals   map[string]bool
}

type funcInfo struct {
	block *ast.BlockStatement // set for block bodies
	arrow *ast.ArrowFunctionLiteral
	calls bool // makes a call that may continue a recursion
}

var typeFilePtr = reflect.TypeOf((*file.File)(nil))

// walkAST visits every node pointer of an AST once, depth first; visit
// returns false to skip a node's children.
func walkAST(v reflect.Value, seen map[uintptr]bool, visit func(reflect.Value) bool) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkAST(v.Elem(), seen, visit)
		}
	case reflect.Pointer:
		if v.IsNil() || v.Type() == typeFilePtr || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		if visit(v) {
			walkAST(v.Elem(), seen, visit)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			walkAST(v.Field(i), seen, visit)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkAST(v.Index(i), seen, visit)
		}
	}
}

func (w *instrumenter) walk(v reflect.Value) { walkAST(v, w.seen, w.node) }

func (w *instrumenter) node(v reflect.Value) bool {
	switch n := v.Interface().(type) {
	case *ast.FunctionLiteral:
		w.function(v, &funcInfo{block: n.Body, calls: w.accessors[n]}, n.Function)
		return false
	case *ast.ArrowFunctionLiteral:
		fi := &funcInfo{arrow: n}
		if b, ok := n.Body.(*ast.BlockStatement); ok {
			fi.block = b
		}
		w.function(v, fi, n.Start)
		return false
	case *ast.PropertyKeyed:
		if fl, ok := n.Value.(*ast.FunctionLiteral); ok && implicitlyCalled(n.Kind, n.Key) {
			w.accessors[fl] = true
		}
	case *ast.MethodDefinition:
		if implicitlyCalled(n.Kind, n.Key) {
			w.accessors[n.Body] = true
		}
	case *ast.CallExpression:
		w.markCall(n.Callee, n.ArgumentList)
	case *ast.NewExpression:
		w.markCall(n.Callee, n.ArgumentList)
	case *ast.TemplateLiteral:
		if n.Tag != nil {
			w.markCall(n.Tag, nil)
		}
	}
	return true
}

func (w *instrumenter) markCall(callee ast.Expression, args []ast.Expression) {
	if len(w.stack) > 0 && w.mayRecurse(callee, args) {
		w.stack[len(w.stack)-1].calls = true
	}
}

// mayRecurse reports whether a call could lead back into user code.
func (w *instrumenter) mayRecurse(callee ast.Expression, args []ast.Expression) bool {
	switch c := unwrapOptional(callee).(type) {
	case *ast.Identifier:
		// A user binding, or a global the user code also names (it may
		// declare a function of that name).
		name := c.Name.String()
		if !w.globals[name] || w.names.referenced[name] {
			return true
		}
	case *ast.DotExpression:
		if w.names.methods[c.Identifier.Name.String()] {
			return true
		}
	case *ast.BracketExpression:
		s, ok := c.Member.(*ast.StringLiteral)
		if !ok || w.names.methods[s.Value.String()] {
			return true
		}
	default:
		// super(...), private methods, f()(), (cond ? f : g)(), IIFEs.
		return true
	}
	for _, a := range args {
		if s, ok := a.(*ast.SpreadElement); ok {
			a = s.Expression
		}
		switch x := unwrapOptional(a).(type) {
		case *ast.Identifier:
			if w.names.functions[x.Name.String()] {
				return true
			}
		case *ast.DotExpression:
			if w.names.methods[x.Identifier.Name.String()] {
				return true
			}
		}
	}
	return false
}

func unwrapOptional(e ast.Expression) ast.Expression {
	for {
		switch o := e.(type) {
		case *ast.Optional:
			e = o.Expression
		case *ast.OptionalChain:
			e = o.Expression
		default:
			return e
		}
	}
}

func (w *instrumenter) function(v reflect.Value, fi *funcInfo, start file.Idx) {
	w.stack = append(w.stack, fi)
	walkAST(v.Elem(), w.seen, w.node)
	w.stack = w.stack[:len(w.stack)-1]
	if !fi.calls || start < w.from || start >= w.to {
		return
	}
	if fi.block != nil {
		at := fi.block.LeftBrace + 1
		body := fi.block.List
		n := directivePrologue(body)
		list := make([]ast.Statement, 0, len(body)+1)
		list = append(list, body[:n]...)
		list = append(list, &ast.ExpressionStatement{Expression: depthCountdown(at)})
		fi.block.List = append(list, body[n:]...)
		return
	}
	if eb, ok := fi.arrow.Body.(*ast.ExpressionBody); ok {
		at := eb.Expression.Idx0()
		eb.Expression = &ast.SequenceExpression{Sequence: []ast.Expression{depthCountdown(at), eb.Expression}}
	}
}

// userNames are the names user code gives to things, collected before
// instrumenting.
type userNames struct {
	// referenced are identifiers used other than as the callee of a call:
	// declarations, parameters, values.
	referenced map[string]bool
	// functions are names bound to function or class literals.
	functions map[string]bool
	// methods are property names given to functions (class and object
	// methods, obj.f = function), plus call/apply/bind.
	methods map[string]bool
}

func collectNames(prg *ast.Program) *userNames {
	u := &userNames{
		referenced: map[string]bool{},
		functions:  map[string]bool{},
		methods:    map[string]bool{"call": true, "apply": true, "bind": true},
	}
	callees := map[*ast.Identifier]bool{}
	walkAST(reflect.ValueOf(prg), map[uintptr]bool{}, func(v reflect.Value) bool {
		switch n := v.Interface().(type) {
		case *ast.Identifier:
			if !callees[n] {
				u.referenced[n.Name.String()] = true
			}
		case *ast.CallExpression:
			if id, ok := unwrapOptional(n.Callee).(*ast.Identifier); ok {
				callees[id] = true
			}
		case *ast.NewExpression:
			if id, ok := unwrapOptional(n.Callee).(*ast.Identifier); ok {
				callees[id] = true
			}
		case *ast.TemplateLiteral:
			if id, ok := n.Tag.(*ast.Identifier); ok {
				callees[id] = true
			}
		case *ast.PropertyShort:
			u.referenced[n.Name.Name.String()] = true
		case *ast.FunctionLiteral:
			if n.Name != nil {
				u.functions[n.Name.Name.String()] = true
			}
		case *ast.ClassLiteral:
			if n.Name != nil {
				u.functions[n.Name.Name.String()] = true
			}
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok && isFunctionLiteral(n.Initializer) {
				u.functions[id.Name.String()] = true
			}
		case *ast.AssignExpression:
			if isFunctionLiteral(n.Right) {
				switch l := n.Left.(type) {
				case *ast.Identifier:
					u.functions[l.Name.String()] = true
				case *ast.DotExpression:
					u.methods[l.Identifier.Name.String()] = true
				case *ast.BracketExpression:
					if s, ok := l.Member.(*ast.StringLiteral); ok {
						u.methods[s.Value.String()] = true
					}
				}
			}
		case *ast.MethodDefinition:
			if name, ok := propertyName(n.Key); ok {
				u.methods[name] = true
			}
		case *ast.PropertyKeyed:
			if name, ok := propertyName(n.Key); ok && isFunctionLiteral(n.Value) {
				u.methods[name] = true
			}
		case *ast.FieldDefinition:
			if name, ok := propertyName(n.Key); ok && isFunctionLiteral(n.Initializer) {
				u.methods[name] = true
			}
		}
		return true
	})
	return u
}

func isFunctionLiteral(e ast.Expression) bool {
	switch e.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.ClassLiteral:
		return true
	}
	return false
}

func propertyName(key ast.Expression) (string, bool) {
	switch k := key.(type) {
	case *ast.Identifier:
		return k.Name.String(), true
	case *ast.StringLiteral:
		return k.Value.String(), true
	case *ast.PrivateIdentifier:
		return k.Name.String(), true
	}
	return "", false
}

// implicitMethods are method names the engine calls without a call
// expression: conversions and Proxy traps.
var implicitMethods = map[string]bool{
	"toString": true, "valueOf": true, "toJSON": true,
	"get": true, "set": true, "has": true, "apply": true, "construct": true, "ownKeys": true,
	"getOwnPropertyDescriptor": true, "defineProperty": true, "deleteProperty": true,
	"getPrototypeOf": true, "setPrototypeOf": true,
}

// implicitlyCalled reports whether a method is one the engine may call
// without a call expression: getters, setters, conversion methods
// (toString, valueOf, toJSON, Symbol.toPrimitive) and Proxy traps.
func implicitlyCalled(kind ast.PropertyKind, key ast.Expression) bool {
	if kind == ast.PropertyKindGet || kind == ast.PropertyKindSet {
		return true
	}
	switch k := key.(type) {
	case *ast.StringLiteral:
		return implicitMethods[k.Value.String()]
	case *ast.Identifier:
		return implicitMethods[k.Name.String()]
	case *ast.DotExpression:
		return k.Identifier.Name == "toPrimitive"
	}
	return false
}

// directivePrologue counts the leading string-literal statements ("use
// strict"), which must stay first for the engine to honour them.
func directivePrologue(list []ast.Statement) int {
	n := 0
	for _, st := range list {
		es, ok := st.(*ast.ExpressionStatement)
		if !ok {
			break
		}
		if _, ok := es.Expression.(*ast.StringLiteral); !ok {
			break
		}
		n++
	}
	return n
}

// depthCountdown is `--__amla_n > 0 || (__amla_n = __amla_chk())`, every
// node placed at idx so errors raised by the check point at the function.
func depthCountdown(idx file.Idx) ast.Expression {
	counter := func() *ast.Identifier { return &ast.Identifier{Name: depthCounterName, Idx: idx} }
	return &ast.BinaryExpression{
		Operator: token.LOGICAL_OR,
		Left: &ast.BinaryExpression{
			Operator:   token.GREATER,
			Left:       &ast.UnaryExpression{Operator: token.DECREMENT, Idx: idx, Operand: counter()},
			Right:      &ast.NumberLiteral{Idx: idx, Literal: "0", Value: int64(0)},
			Comparison: true,
		},
		Right: &ast.AssignExpression{
			Operator: token.ASSIGN,
			Left:     counter(),
			Right: &ast.CallExpression{
				Callee:           &ast.Identifier{Name: depthCheckName, Idx: idx},
				LeftParenthesis:  idx,
				RightParenthesis: idx,
			},
		},
	}
}
