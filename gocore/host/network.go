package host

// HTTP requests under the sandbox's network policy (package netpolicy).
// A guest submits one as a tool request of method wire.MethodHTTP; the
// host, never Python, decides it and makes it:
//
//  1. Prepare: the floor's checks on the request itself, and its
//     description as capability method "http/<VERB>/<host>/<path>" with
//     params (the method and params every later step, the journal, the
//     approver and the run's tool_calls see);
//  2. the grant: a capability of the sandbox whose method pattern starts
//     with "http/" (tried first, as the capabilities are tried for tools),
//     else an allow rule of the policy; a pattern that is not explicitly
//     HTTP ("**", the development default) never opens the network;
//  3. approval, when the grant asks for it, and the journal, exactly as
//     for a tool call (authorizeCallWith);
//  4. the request itself, on a goroutine of its own: requests submitted
//     together are in flight together (bounded by max_concurrent), and
//     the answer reaches the guest through the same queue as tool answers,
//     so it is journaled and replayed like them (a replay makes no
//     request: it hands back the recorded response).
//
// A run's requests are cancelled when the run ends.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/wire"
)

// ExplicitAuthorizer is an Authorizer that can decide a call by the
// capabilities that name its kind explicitly (capability.Policy's
// AuthorizeExplicit): explicit reports whether any capability has a
// pattern starting with prefix.
type ExplicitAuthorizer interface {
	AuthorizeExplicit(prefix, method string, params json.RawMessage) (pattern string, needsApproval, explicit bool, err error)
	// ExplicitPatterns are the method patterns that start with prefix.
	ExplicitPatterns(prefix string) []string
}

// portNamed reports whether one of the sandbox's http/ capability
// patterns names port in its host segment ("http/GET/h:8443/**").
func (s *Sandbox) portNamed(port int) bool {
	ea, ok := s.cfg.Authorizer.(ExplicitAuthorizer)
	if !ok {
		return false
	}
	suffix := ":" + strconv.Itoa(port)
	for _, pat := range ea.ExplicitPatterns(httpPrefix) {
		segs := strings.SplitN(pat, "/", 4)
		if len(segs) >= 3 && strings.HasSuffix(segs[2], suffix) {
			return true
		}
	}
	return false
}

// httpPrefix is the literal start of every HTTP request's capability
// method, and of the patterns that may grant one.
const httpPrefix = "http/"

// network is a sandbox's network: its policy and the executor that makes
// its requests. Nil when the sandbox has no policy.
type network struct {
	policy *netpolicy.Policy
	exec   *netpolicy.Executor
	env    map[string]string // the exposed secrets' placeholders, by name
}

func newNetwork(p *netpolicy.Policy) (*network, error) {
	if p == nil {
		return nil, nil
	}
	exec, err := netpolicy.NewExecutor(p)
	if err != nil {
		return nil, fmt.Errorf("network policy: %w", err)
	}
	return &network{policy: p, exec: exec, env: p.Placeholders()}, nil
}

// derivePlaceholders makes each secret's placeholder a function of the
// durable key and the secret's name, so a run journaled under the key and
// replayed or resumed under it sees the same placeholders (its recorded
// requests hold them). The placeholder is no secret: the guest sees it.
func (n *network) derivePlaceholders(key []byte) error {
	if n == nil {
		return nil
	}
	m := map[string]string{}
	for _, s := range n.policy.Secrets() {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte("amla-sandbox network placeholder\x00" + s.Name))
		m[s.Name] = netpolicy.PlaceholderPrefix + s.Name + "_" + hex.EncodeToString(mac.Sum(nil)[:16])
	}
	if err := n.policy.SetPlaceholders(m); err != nil {
		return err
	}
	n.env = n.policy.Placeholders()
	return nil
}

func (n *network) close() {
	if n != nil {
		n.exec.Close()
	}
}

// httpRefusal is the answer to a request that was refused or failed.
func httpRefusal(id int64, err error) wire.ToolAnswer {
	w := netpolicy.ToWire(err)
	result, _ := json.Marshal(w)
	return wire.ToolAnswer{ID: id, Code: wire.CodeHTTPRefused, Error: w.Message, Result: result}
}

// submitHTTP is submit for a request of method wire.MethodHTTP: params is
// the guest's wire.HTTPRequest.
func (p *proc) submitHTTP(id int64, params json.RawMessage) (int64, error) {
	r := p.run
	refuseWith := func(method string, shown json.RawMessage, err error, v verdict) (int64, error) {
		r.mu.Lock()
		r.answerNow(p, id, method, shown, httpRefusal(id, err), v)
		r.mu.Unlock()
		return id, nil
	}
	refuse := func(method string, shown json.RawMessage, err error) (int64, error) {
		return refuseWith(method, shown, err, refusedBy(err))
	}
	var req wire.HTTPRequest
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return refuse(wire.MethodHTTP, json.RawMessage("{}"), &netpolicy.Refusal{Check: netpolicy.CheckURL,
			Reason: "the guest's request could not be read: " + err.Error()})
	}
	n := r.sb.net
	if n == nil && r.dur.replaying() {
		return id, r.dur.diverge(id, "the recorded run's HTTP requests, decided by its network policy",
			"an HTTP request in a sandbox without a network policy: replay with network= set to the recorded "+
				"run's policy (the same rules; it makes no request, so a secret may hold any stand-in value)")
	}
	if n == nil {
		// The URL is shown without its query, which may hold a key.
		u, _, _ := strings.Cut(req.URL, "?")
		u, _, _ = strings.Cut(u, "#")
		return refuse(wire.MethodHTTP, json.RawMessage("{}"), &netpolicy.Refusal{Check: "network",
			Value: strings.ToUpper(req.Method) + " " + u,
			Reason: "this sandbox has no network policy (it was created without network=), so scripts cannot make " +
				"HTTP requests; use a tool the sandbox provides instead"})
	}
	prep, err := n.policy.PrepareNaming(req, r.sb.portNamed)
	if err != nil {
		return refuse(wire.MethodHTTP, json.RawMessage("{}"), err)
	}
	decide := func() (string, bool, error) { return r.sb.grantHTTP(prep) }
	v, err := p.authorizeCallWith(id, prep.Method, prep.Params, decide)
	if err != nil {
		if err == errStopped {
			return id, err
		}
		if _, ok := netpolicy.AsRefusal(err); !ok {
			check := "capability"
			if _, ok := err.(*approvalError); ok {
				check = "approval"
			}
			err = &netpolicy.Refusal{Check: check, Value: prep.URL, Reason: err.Error()}
		}
		return refuseWith(prep.Method, prep.Params, err, v)
	}
	if p.replayedRequest(id, wire.ToolRequest{Method: prep.Method, Params: prep.Params}, v) {
		return id, nil
	}
	r.mu.Lock()
	r.addCall(id, prep.Method, prep.Params, v)
	r.owner[id] = p
	p.pending[id] = true
	ctx, stop := context.WithCancel(r.httpContext())
	r.httpStop[id] = stop
	r.mu.Unlock()

	deadline := time.Now().Add(r.ctl.remaining())
	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.httpStop, id)
			r.mu.Unlock()
			stop()
		}()
		defer func() {
			if v := recover(); v != nil {
				_ = r.settle(id, httpRefusal(id, fmt.Errorf("internal error (Go panic): %v", v)))
			}
		}()
		// The body is charged from before it is read (its announced size,
		// as the host holds it while it encodes the answer) until the
		// guest takes the answer.
		reserve := func(body int64) error { return r.holdHTTP(id, body+(body+2)/3*4+1024) }
		resp, err := n.exec.DoReserving(ctx, prep, deadline, reserve)
		var a wire.ToolAnswer
		if err == nil {
			var body []byte
			if body, err = json.Marshal(resp); err == nil {
				a = wire.ToolAnswer{ID: id, OK: true, Result: body}
				r.holdHTTP(id, int64(len(body))) // what is held now: never more than reserved
			}
		}
		if err != nil {
			r.releaseHTTP(id)
			a = httpRefusal(id, err)
		}
		_ = r.settle(id, a) // nil, or the run ended and nobody waits
	}()
	return id, nil
}

// grantHTTP decides an HTTP request that passed the floor: by the
// sandbox's explicit HTTP capabilities first, then by the policy's allow
// rules. It spends the budget of whichever allowed it, names it (the
// capability's pattern or the rule's text) and says whether that grant
// requires approval.
func (s *Sandbox) grantHTTP(prep *netpolicy.Prepared) (string, bool, error) {
	pol := s.net.policy
	var capErr error
	if ea, ok := s.cfg.Authorizer.(ExplicitAuthorizer); ok {
		pattern, needs, explicit, err := ea.AuthorizeExplicit(httpPrefix, prep.Method, prep.Params)
		if explicit && err == nil {
			if perr := pol.Permit(prep); perr != nil {
				return "", false, perr
			}
			return pattern, needs, nil
		}
		capErr = err
	}
	d, err := pol.Authorize(prep)
	if err != nil {
		if ref, ok := netpolicy.AsRefusal(err); ok && capErr != nil {
			ref.Reason += "; the sandbox's HTTP capabilities refused it too: " + capErr.Error()
		}
		return "", false, err
	}
	grant := ""
	if d.Rule != nil {
		grant = d.Rule.Text
	}
	return grant, d.RequireApproval, nil
}

// httpContext is the context of the run's requests, cancelled when the
// run ends. mu must be held.
func (r *Run) httpContext() context.Context {
	if r.httpCtx == nil {
		r.httpCtx, r.httpCancel = context.WithCancel(context.Background())
	}
	return r.httpCtx
}

// endRequests cancels the run's requests still in flight. mu must be held.
func (r *Run) endRequests() {
	if r.httpCancel != nil {
		r.httpCancel()
	}
}

// holdHTTP sets request id's charge to n bytes (replacing what it held):
// the bytes of its response the host holds until the guest takes the
// answer, charged against memory_limit with the tool requests waiting and
// the other answers not yet taken, so a script that starts many large
// downloads without reading them gets refusals, not a host holding them
// all. It refuses when n is more than the charge held and that would pass
// the limit.
func (r *Run) holdHTTP(id, n int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.httpBytes[id]
	limit := r.sb.cfg.Limits.MemoryLimit
	if n > prev && r.outstanding+r.httpHeld-prev+n > limit {
		return &netpolicy.Refusal{Check: "memory_limit", Reason: fmt.Sprintf("the response (%d bytes as the host holds it) "+
			"and the %d responses read or being read and not yet taken by the script (%d bytes) would exceed "+
			"memory_limit=%d; read responses before starting more", n, len(r.httpBytes), r.httpHeld-prev, limit)}
	}
	r.httpHeld += n - prev
	r.httpBytes[id] = n
	return nil
}

// releaseHTTP drops request id's charge.
func (r *Run) releaseHTTP(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.httpHeld -= r.httpBytes[id]
	delete(r.httpBytes, id)
}

// cancelHTTP is the http_cancel request (wire.MethodHTTPCancel): it stops
// request {"id": n} of the same process if it is in flight, so its answer
// (refused, "cancelled") comes at once; it is itself answered OK at once.
func (p *proc) cancelHTTP(id int64, params json.RawMessage) (int64, error) {
	r := p.run
	var req struct {
		ID int64 `json:"id"`
	}
	answer := wire.ToolAnswer{ID: id, OK: true, Result: json.RawMessage("null")}
	var v verdict
	if err := json.Unmarshal(params, &req); err != nil {
		answer = wire.ToolAnswer{ID: id, Code: wire.CodeInvalidRequest, Error: "http_cancel: params must be {\"id\": <request id>}"}
		v.check = checkRequest
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if stop, ok := r.httpStop[req.ID]; ok && r.owner[req.ID] == p {
		stop()
	}
	r.answerNow(p, id, wire.MethodHTTPCancel, params, answer, v)
	return id, nil
}
