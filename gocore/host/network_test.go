package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"amlasandbox/gocore/capability"
	"amlasandbox/gocore/netpolicy"
	"amlasandbox/gocore/wire"
)

// newNetSandbox is a sandbox whose policy is policyJSON and whose
// capabilities are caps.
func newNetSandbox(t *testing.T, policyJSON string, caps []capability.MethodCapability) *Sandbox {
	t.Helper()
	pol, err := netpolicy.ParsePolicy([]byte(policyJSON))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := NewSandbox(testGuest, Config{Authorizer: capability.NewPolicy(caps), Network: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

func fetchCode(method, url string) string {
	params, _ := json.Marshal(wire.HTTPRequest{Method: method, URL: url})
	return "call http " + string(params)
}

// The host answers HTTP requests itself: Python never sees them, and the
// answer is the server's response or a refusal naming the check.
func TestHTTPRequestsAreTheHosts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}))
	defer srv.Close()
	everything := []capability.MethodCapability{{MethodPattern: "**"}}
	policy := fmt.Sprintf(`{"allow": ["GET %s/ok/**"], "allow_private": ["127.0.0.1"]}`, srv.URL)
	sb := newNetSandbox(t, policy, everything)
	noPolicy, err := NewSandbox(testGuest, Config{Authorizer: capability.NewPolicy(everything)})
	if err != nil {
		t.Fatal(err)
	}
	defer noPolicy.Close()
	cases := []struct {
		sb         *Sandbox
		code, want string
	}{
		{sb, fetchCode("GET", srv.URL+"/ok/a"), `"status":200`},
		{sb, fetchCode("GET", srv.URL+"/other"), "err network policy: refused by the allow check"},
		{sb, fetchCode("DELETE", srv.URL+"/ok/a"), "err network policy: refused by the allow check"},
		{sb, fetchCode("GET", "http://2130706433"+srv.URL[len("http://127.0.0.1"):]+"/ok/a"), "err network policy: refused by the host check"},
		{noPolicy, fetchCode("GET", srv.URL+"/ok/a"), "err network policy: refused by the network check"},
	}
	for _, c := range cases {
		res := run(t, c.sb, c.code, func(ev wire.Event) (string, error) {
			t.Errorf("%s: Python was asked %s", c.code, ev.Method)
			return "null", nil
		})
		if !strings.Contains(res.Stdout, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.code, res.Stdout, c.want)
		}
	}
}

// Requests submitted together are in flight together, up to
// max_concurrent.
func TestHTTPRequestsOverlap(t *testing.T) {
	var inFlight, most atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		fmt.Fprint(w, "{}")
	}))
	defer srv.Close()
	policy := fmt.Sprintf(`{"allow": ["GET %s/**"], "allow_private": ["127.0.0.1"], "max_concurrent": 4}`, srv.URL)
	sb := newNetSandbox(t, policy, nil)
	res := run(t, sb, "fetchall 8 "+srv.URL+"/x", func(wire.Event) (string, error) { return "null", nil })
	if res.Stdout != "8 ok\n" {
		t.Fatalf("got %q, stderr %q", res.Stdout, res.Stderr)
	}
	if got := most.Load(); got < 2 || got > 4 {
		t.Errorf("at most %d requests were in flight at once, want 2..4 (max_concurrent 4)", got)
	}
}

// A cancelled run ends at once, and its request in flight with it.
func TestCancelEndsRequestsInFlight(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	policy := fmt.Sprintf(`{"allow": ["GET %s/**"], "allow_private": ["127.0.0.1"]}`, srv.URL)
	sb := newNetSandbox(t, policy, nil)
	r, err := sb.Start("shell", fetchCode("GET", srv.URL+"/hang"), "", false, false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	started := time.Now()
	r.Cancel()
	done := make(chan struct{})
	go func() { r.WaitDone(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not end within 5 s of Cancel")
	}
	if d := time.Since(started); d > 2*time.Second {
		t.Errorf("Cancel took %v", d)
	}
}
