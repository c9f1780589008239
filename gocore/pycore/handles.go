package pycore

import "sync"

// handles maps int64 handles given to Python to Go values.
type handles[T any] struct {
	mu   sync.Mutex
	next int64
	m    map[int64]T
}

func (h *handles[T]) put(v T) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[int64]T{}
	}
	h.next++
	h.m[h.next] = v
	return h.next
}

func (h *handles[T]) get(id int64) (T, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[id]
	return v, ok
}

func (h *handles[T]) drop(id int64) (T, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[id]
	delete(h.m, id)
	return v, ok
}
