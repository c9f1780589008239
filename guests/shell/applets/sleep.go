package applets

import (
	"strconv"
	"strings"
	"time"

	"amlasandbox/guests/shell/hostcall"
)

// sleepApplet waits for the sum of its durations (seconds, or with a suffix
// s, m, h, d), or until the run is cancelled.
func sleepApplet(p *Proc, args []string) int {
	if len(args) < 2 {
		return p.usage("sleep", "missing operand", "sleep NUMBER[smhd]...")
	}
	var total time.Duration
	for _, a := range args[1:] {
		unit := time.Second
		num := a
		switch {
		case strings.HasSuffix(a, "s"):
			num = a[:len(a)-1]
		case strings.HasSuffix(a, "m"):
			num, unit = a[:len(a)-1], time.Minute
		case strings.HasSuffix(a, "h"):
			num, unit = a[:len(a)-1], time.Hour
		case strings.HasSuffix(a, "d"):
			num, unit = a[:len(a)-1], 24*time.Hour
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || f < 0 {
			return p.usage("sleep", "invalid time interval '"+a+"'", "sleep NUMBER[smhd]...")
		}
		total += time.Duration(f * float64(unit))
	}
	// The wait happens in the host, where the run's deadline and
	// cancellation apply; a `timeout` around us bounds it here.
	stopped := false
	if dl, ok := p.ctx().Deadline(); ok {
		if left := time.Until(dl); left < total {
			total, stopped = max(left, 0), true
		}
	}
	if p.ctx().Err() != nil {
		return 130
	}
	hostcall.Sleep(total)
	if stopped {
		// The deadline has passed; let the context notice before we
		// return, so `timeout` reports 124.
		<-p.ctx().Done()
	}
	if p.ctx().Err() != nil {
		return 130
	}
	return 0
}
