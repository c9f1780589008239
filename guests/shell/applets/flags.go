package applets

import (
	"fmt"
	"strings"
)

// opt is one parsed option: its letter (or long name) and its argument.
type opt struct {
	name string
	val  string
}

// flagSpec describes the options of one applet in getopt style: short is a
// list of letters, each followed by ':' when it takes an argument
// ("inA:B:"); long maps long names to the short letter they stand for, with
// a trailing ':' on the key when the long form takes an argument
// ("context:" -> "C"). A long option with no short letter maps to itself.
type flagSpec struct {
	short string
	long  map[string]string
	// stopAtOperand stops option parsing at the first operand (POSIX
	// style) instead of permuting options and operands like GNU.
	stopAtOperand bool
	// numeric accepts "-5" as an option named "#" with value "5" (head,
	// tail, uniq -f style shorthands).
	numeric bool
}

// takesArg reports whether letter c takes an argument, and whether it is
// known at all.
func (s flagSpec) takesArg(c byte) (known, arg bool) {
	i := strings.IndexByte(s.short, c)
	if i < 0 || c == ':' {
		return false, false
	}
	return true, i+1 < len(s.short) && s.short[i+1] == ':'
}

// parse splits args (without the applet name) into options and operands.
// "--" ends the options; a lone "-" is an operand.
func (s flagSpec) parse(args []string) (opts []opt, operands []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			short, known := s.long[name]
			withArg := false
			if !known {
				short, known = s.long[name+":"]
				withArg = known
			}
			if !known {
				return nil, nil, &flagError{opt: "--" + name, unknown: true, msg: fmt.Sprintf("unrecognized option '%s'", a)}
			}
			if short == "" {
				short = name
			}
			if withArg && !hasVal {
				if i+1 >= len(args) {
					return nil, nil, &flagError{opt: "--" + name, msg: fmt.Sprintf("option '--%s' requires an argument", name)}
				}
				i++
				val = args[i]
			} else if !withArg && hasVal {
				return nil, nil, &flagError{opt: "--" + name, unknown: true, msg: fmt.Sprintf("option '--%s' doesn't allow an argument", name)}
			}
			opts = append(opts, opt{short, val})
		case len(a) > 1 && a[0] == '-':
			if s.numeric && isDigits(a[1:]) {
				opts = append(opts, opt{"#", a[1:]})
				continue
			}
			for j := 1; j < len(a); j++ {
				c := a[j]
				known, withArg := s.takesArg(c)
				if !known {
					return nil, nil, &flagError{opt: "-" + string(c), unknown: true, msg: fmt.Sprintf("invalid option -- '%c'", c)}
				}
				if !withArg {
					opts = append(opts, opt{string(c), ""})
					continue
				}
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, nil, &flagError{opt: "-" + string(c), msg: fmt.Sprintf("option requires an argument -- '%c'", c)}
					}
					i++
					val = args[i]
				}
				opts = append(opts, opt{string(c), val})
				break
			}
		default:
			operands = append(operands, a)
			if s.stopAtOperand {
				return opts, append(operands, args[i+1:]...), nil
			}
		}
	}
	return opts, operands, nil
}

// flagError is an option flagSpec.parse could not read. Its text is
// getopt's; opt is the option as written ("--foo", "-x"), and unknown
// says the option (or its form) is not understood rather than missing
// its argument, for applets whose own messages differ (curl).
type flagError struct {
	opt     string
	unknown bool
	msg     string
}

func (e *flagError) Error() string { return e.msg }

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
