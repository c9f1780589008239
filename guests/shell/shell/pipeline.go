package shell

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// stage is one command of a pipeline; all sets |& (stderr too).
type stage struct {
	stmt *syntax.Stmt
	all  bool
}

// flattenPipe lists the stages of a | b | c.
func flattenPipe(s *syntax.Stmt, all bool, out []stage) []stage {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && !s.Negated && len(s.Redirs) == 0 &&
		(b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		out = flattenPipe(b.X, b.Op == syntax.PipeAll, out)
		return flattenPipe(b.Y, all, out)
	}
	return append(out, stage{s, all})
}

// pipeline runs a | b | c: every stage is a subshell in its own goroutine,
// joined by io.Pipe. When a stage ends, its input pipe is closed, so the
// stage before it gets an error on its next write and stops (SIGPIPE), and
// its output pipe is closed, so the stage after it sees end of file.
func (r *runner) pipeline(c *syntax.BinaryCmd) error {
	var stages []stage
	stages = flattenPipe(c.X, c.Op == syntax.PipeAll, stages)
	stages = flattenPipe(c.Y, false, stages)
	n := len(stages)
	readers := make([]*io.PipeReader, n-1)
	writers := make([]*io.PipeWriter, n-1)
	for i := range readers {
		readers[i], writers[i] = io.Pipe()
	}
	// A cancelled run unblocks every stage waiting on a pipe.
	stop := context.AfterFunc(r.ctx, func() {
		for i := range readers {
			readers[i].CloseWithError(r.ctx.Err())
			writers[i].CloseWithError(r.ctx.Err())
		}
	})
	defer stop()

	statuses := make([]int, n)
	var wg sync.WaitGroup
	// With lastpipe the last stage runs in this shell (read sets a
	// variable here), as bash does.
	lastHere := r.opts.lastpipe
	var lastErr error
	for i, st := range stages {
		if i == n-1 && lastHere {
			oldIn := r.stdin
			r.stdin = readers[i-1]
			lastErr = r.stmt(st.stmt)
			statuses[i] = r.status
			readers[i-1].Close()
			r.stdin = oldIn
			continue
		}
		sub := r.subshell()
		if i > 0 {
			sub.stdin = readers[i-1]
		}
		if i < n-1 {
			out := &pipeOut{w: writers[i]}
			sub.stdout, sub.pipe = out, out
			if st.all {
				sub.stderr = out
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if i < n-1 {
					writers[i].Close()
				}
				if i > 0 {
					readers[i-1].Close()
				}
			}()
			defer func() {
				if v := recover(); v != nil {
					fmt.Fprintf(sub.stderr, "%s: internal error: %v\n%s", sub.name, v, debug.Stack())
					statuses[i] = 70
				}
			}()
			err := sub.stmt(st.stmt)
			statuses[i] = sub.finishSub(err)
		}()
	}
	wg.Wait()
	if err := r.checkCancel(); err != nil {
		return err
	}
	r.pipeStatus = statuses
	r.status = statuses[n-1]
	if r.opts.pipefail {
		for i := n - 1; i >= 0; i-- {
			if statuses[i] != 0 {
				r.status = statuses[i]
				break
			}
		}
	}
	return lastErr
}
