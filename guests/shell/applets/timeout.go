package applets

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// timeoutApplet runs a command and stops it after a duration (seconds, or
// with a suffix s, m, h, d), returning 124 like timeout(1).
func timeoutApplet(p *Proc, args []string) int {
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && len(rest[0]) > 1 {
		switch a := rest[0]; {
		case a == "-s" || a == "-k" || a == "--signal" || a == "--kill-after":
			if len(rest) < 2 {
				return p.usage("timeout", "option requires an argument", "timeout DURATION COMMAND [ARG]...")
			}
			rest = rest[1:]
		case a == "--":
			rest = rest[1:]
			goto run
		}
		rest = rest[1:]
	}
run:
	if len(rest) < 2 {
		return p.usage("timeout", "missing operand", "timeout DURATION COMMAND [ARG]...")
	}
	d, err := parseDuration(rest[0])
	if err != nil {
		return p.usage("timeout", "invalid time interval '"+rest[0]+"'", "timeout DURATION COMMAND [ARG]...")
	}
	ctx := p.ctx()
	var cancel context.CancelFunc
	if d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	child := *p
	child.Ctx = ctx
	status := child.Exec(p.Stdin, rest[1:])
	if ctx.Err() == context.DeadlineExceeded && p.ctx().Err() == nil {
		return 124
	}
	return status
}

// parseDuration reads NUMBER[smhd].
func parseDuration(s string) (time.Duration, error) {
	unit := time.Second
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			num = s[:n-1]
		case 'm':
			num, unit = s[:n-1], time.Minute
		case 'h':
			num, unit = s[:n-1], time.Hour
		case 'd':
			num, unit = s[:n-1], 24*time.Hour
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, strconv.ErrSyntax
	}
	return time.Duration(f * float64(unit)), nil
}
