package applets

import (
	"context"
	"strconv"
	"time"
)

const timeoutUsage = "timeout [--preserve-status] [-s SIGNAL] [-k DURATION] [-v] DURATION COMMAND [ARG]..."

// timeoutApplet runs a command and stops it after a duration (seconds, or
// with a suffix s, m, h, d), as GNU timeout: status 124 when the time ran
// out (or the command's own with --preserve-status), 125 for its own
// errors, 127 when the command does not exist. A stopped command is
// cancelled, not signalled: -s and -k are accepted and have no effect.
func timeoutApplet(p *Proc, args []string) int {
	spec := flagSpec{short: "s:k:v", stopAtOperand: true, long: map[string]string{"signal:": "s",
		"kill-after:": "k", "preserve-status": "preserve-status", "foreground": "foreground", "verbose": "v"}}
	opts, rest, err := spec.parse(args[1:])
	if err != nil {
		p.usage("timeout", err.Error(), timeoutUsage)
		return 125
	}
	preserve, verbose := false, false
	for _, o := range opts {
		switch o.name {
		case "preserve-status":
			preserve = true
		case "v":
			verbose = true
		case "k":
			if _, err := parseDuration(o.val); err != nil {
				p.usage("timeout", "invalid time interval '"+o.val+"'", timeoutUsage)
				return 125
			}
		}
	}
	if len(rest) < 2 {
		p.usage("timeout", "missing operand", timeoutUsage)
		return 125
	}
	d, err := parseDuration(rest[0])
	if err != nil {
		p.usage("timeout", "invalid time interval '"+rest[0]+"'", timeoutUsage)
		return 125
	}
	reg := p.Registry
	if reg == nil {
		reg = Default()
	}
	if _, ok := reg.Lookup(rest[1]); !ok {
		p.errorf("timeout", "failed to run command '%s': No such file or directory", rest[1])
		return 127
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
		if verbose {
			p.errorf("timeout", "sending signal TERM to command '%s'", rest[1])
		}
		if preserve {
			return status
		}
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
