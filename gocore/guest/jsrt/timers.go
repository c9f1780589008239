package jsrt

import (
	"container/heap"
	"time"

	"github.com/dop251/goja"

	"amlasandbox/gocore/guest/hostcall"
)

// timer is one setTimeout or setInterval.
type timer struct {
	id       int64
	due      time.Time
	seq      int64 // creation order breaks ties between equal due times
	interval time.Duration
	repeat   bool
	ref      bool // keeps the run alive after the script's promise settled
	fn       goja.Callable
	index    int
}

// timerQueue orders timers by due time, then creation.
type timerQueue struct {
	items []*timer
	byID  map[int64]*timer
	seq   int64
}

func (q *timerQueue) Len() int { return len(q.items) }
func (q *timerQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.due.Equal(b.due) {
		return a.due.Before(b.due)
	}
	return a.seq < b.seq
}
func (q *timerQueue) Swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].index, q.items[j].index = i, j
}
func (q *timerQueue) Push(x interface{}) {
	t := x.(*timer)
	t.index = len(q.items)
	q.items = append(q.items, t)
}
func (q *timerQueue) Pop() interface{} {
	t := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	t.index = -1
	return t
}

func (q *timerQueue) add(t *timer) {
	if q.byID == nil {
		q.byID = map[int64]*timer{}
	}
	q.seq++
	t.seq = q.seq
	q.byID[t.id] = t
	heap.Push(q, t)
}

func (q *timerQueue) remove(id int64) {
	t, ok := q.byID[id]
	if !ok {
		return
	}
	delete(q.byID, id)
	if t.index >= 0 {
		heap.Remove(q, t.index)
	}
}

func (q *timerQueue) peek() *timer {
	if len(q.items) == 0 {
		return nil
	}
	return q.items[0]
}

func (q *timerQueue) pop() *timer {
	t := heap.Pop(q).(*timer)
	delete(q.byID, t.id)
	return t
}

// keepsAlive reports whether a one-shot, ref'd timeout is still waiting.
func (q *timerQueue) keepsAlive() bool {
	for _, t := range q.items {
		if t.ref && !t.repeat {
			return true
		}
	}
	return false
}

// setTimer is the native behind setTimeout and setInterval:
// setTimer(fn, delayMs, repeat) returns the timer's id.
func (rt *runtime) setTimer(call goja.FunctionCall) goja.Value {
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		rt.throw(rt.typeErrorCtor, `The "callback" argument must be of type function. Received `+call.Argument(0).String())
	}
	delay := call.Argument(1).ToFloat()
	if delay != delay || delay < 0 { // NaN or negative
		delay = 0
	}
	if delay > 1<<31-1 {
		delay = 1
	}
	repeat := call.Argument(2).ToBoolean()
	d := time.Duration(delay * float64(time.Millisecond))
	if repeat && d < time.Millisecond {
		d = time.Millisecond // an interval of 0 would never let time pass
	}
	rt.nextTimerID++
	t := &timer{id: rt.nextTimerID, due: time.Now().Add(d), interval: d, repeat: repeat, ref: true, fn: fn}
	rt.timers.add(t)
	return rt.vm.ToValue(t.id)
}

// clearTimer(id) cancels a timer; unknown ids are ignored, as in Node.
func (rt *runtime) clearTimer(call goja.FunctionCall) goja.Value {
	rt.timers.remove(call.Argument(0).ToInteger())
	return goja.Undefined()
}

// refTimer(id, ref) is Timeout.ref() / unref().
func (rt *runtime) refTimer(call goja.FunctionCall) goja.Value {
	if t, ok := rt.timers.byID[call.Argument(0).ToInteger()]; ok {
		t.ref = call.Argument(1).ToBoolean()
	}
	return goja.Undefined()
}

// fireDueTimers fires every timer that is due now and reports whether it
// fired any.
func (rt *runtime) fireDueTimers() bool {
	fired := false
	now := time.Now()
	for !rt.stopped {
		t := rt.timers.peek()
		if t == nil || t.due.After(now) {
			break
		}
		rt.fireTimer(rt.timers.pop())
		fired = true
	}
	return fired
}

// fireTimer runs one timer's callback as a macrotask (its promise jobs
// are drained before this returns) and re-arms an interval.
func (rt *runtime) fireTimer(t *timer) {
	if t.repeat {
		t.due = time.Now().Add(t.interval)
		rt.timers.add(t)
	}
	_, err := t.fn(goja.Undefined())
	rt.check(err)
}

// sleepUntil waits for a timer to come due; false means interrupted.
func (rt *runtime) sleepUntil(due time.Time) bool {
	d := time.Until(due)
	if d <= 0 {
		return true
	}
	if rt.opts.Interrupt == nil {
		// In the host, where the run's deadline and cancellation apply.
		hostcall.Sleep(d)
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-rt.opts.Interrupt:
		return false
	}
}
