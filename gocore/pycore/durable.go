package pycore

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"amlasandbox/gocore/host"
)

// Durable sessions (docs/durable.md): snapshots of a sandbox's files and
// budgets, journaled runs and their replay, approval of tool calls.
// Snapshots and journals cross as []byte (gopy's byte-slice handles: one
// copy each way, where hex or base64 text would double them and cost an
// encoding); everything else as JSON text. A damaged or hostile snapshot
// or journal is a kindInvalid error (Python: ValueError).

// durableErr gives a snapshot's or a journal's fault the kind Python maps
// to ValueError.
func durableErr(err error) error {
	if errors.Is(err, host.ErrSnapshot) || errors.Is(err, host.ErrJournal) {
		return newError(kindInvalid, "%s", err.Error())
	}
	return err
}

// SandboxSetDurableKey sets the key the sandbox's snapshots, journals and
// approval tokens are authenticated with (HMAC-SHA-256); it returns a
// status. Python calls it as the sandbox is made, before any run.
func SandboxSetDurableKey(h int64, key []byte) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		if len(key) < 16 {
			return newError(kindInvalid, "a durable key of %d bytes is too short (at least 16)", len(key))
		}
		e.sb.SetDurableKey(key)
		return nil
	})
}

// SandboxSnapshot returns the sandbox's files and the calls its budgets
// have left, in the snapshot format. It is an error while a run is in
// progress.
func SandboxSnapshot(h int64, compress bool) (out []byte, err error) {
	defer guard(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return nil, err
	}
	return e.sb.Snapshot(host.SnapshotOptions{Compress: compress})
}

// SandboxRestore replaces the sandbox's files with a snapshot's and lowers
// its budgets to what the snapshot had left; it returns a status. A
// damaged or hostile snapshot changes nothing.
func SandboxRestore(h int64, data []byte) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		return durableErr(e.sb.Restore(data))
	})
}

// SandboxCopyFiles makes dst's files a copy of src's and lowers dst's
// budgets to what src has left (fork); it returns a status.
func SandboxCopyFiles(src, dst int64) string {
	return status(func() error {
		from, err := sandboxOf(src)
		if err != nil {
			return err
		}
		to, err := sandboxOf(dst)
		if err != nil {
			return err
		}
		return from.sb.CopyTo(to.sb)
	})
}

// durableOptions are SandboxStartDurable's options (host.RunOptions).
type durableOptions struct {
	Language    string `json:"language"`
	Code        string `json:"code"`
	Stdin       string `json:"stdin"`
	HasStdin    bool   `json:"has_stdin"`
	Stream      bool   `json:"stream"`
	Record      bool   `json:"record"`
	RecordStart string `json:"record_start"`
	Then        string `json:"then"`
	Approve     *bool  `json:"approve"`
	Approvals   string `json:"approvals"`
	// Packages: the mounted Python packages and their digests.
	Packages []host.PackageDigest `json:"packages"`
}

// SandboxStartDurable begins a run that keeps a journal, replays one
// (journal not empty: its code and inputs; language, code and stdin are
// ignored) or may ask for approvals; optionsJSON holds durableOptions. It
// returns the run's id, as SandboxStart does.
func SandboxStartDurable(h int64, optionsJSON string, journal []byte) (id int64, err error) {
	defer guard(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return 0, err
	}
	var o durableOptions
	if err := json.Unmarshal([]byte(optionsJSON), &o); err != nil {
		return 0, newError(kindInvalid, "durable run options: %v", err)
	}
	ro := host.RunOptions{Language: o.Language, Code: o.Code, Stdin: o.Stdin, HasStdin: o.HasStdin, Stream: o.Stream,
		Record: o.Record, RecordStart: o.RecordStart, Then: o.Then, Approve: o.Approve, Approvals: o.Approvals, Packages: o.Packages}
	if len(journal) > 0 {
		j, err := e.sb.DecodeJournal(journal)
		if err != nil {
			return 0, durableErr(err)
		}
		ro.Replay = j
	}
	r, err := e.sb.StartDurable(ro)
	if err != nil {
		return 0, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run, e.runID = r, runIDs.Add(1)
	e.stdout, e.stderr = "", ""
	return e.runID, nil
}

// SandboxApprove answers approval request req of run id (approve or
// refuse the call); it returns a status.
func SandboxApprove(h, id, req int64, approve bool) string {
	return status(func() error {
		_, r, err := current(h, id)
		if err != nil {
			return err
		}
		return r.Approve(req, approve)
	})
}

// SandboxJournal returns the journal of run id, finished (for a run
// paused for approval: the token to continue from).
func SandboxJournal(h, id int64) (out []byte, err error) {
	defer guard(&err)
	_, r, err := current(h, id)
	if err != nil {
		return nil, err
	}
	return r.Journal()
}

type durableOutcome struct {
	Divergence *host.Divergence `json:"divergence"`
	Paused     *pausedCall      `json:"paused"`
}

type pausedCall struct {
	// TokenID identifies the approval (a token is redeemed once).
	TokenID string          `json:"token_id"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// SandboxDurableOutcome says how run id, finished, left its journal: the
// divergence of a replay, the call a run paused at for approval (JSON
// {"divergence": {call, event, recorded, asked} | null, "paused": {id,
// method, params} | null}).
func SandboxDurableOutcome(h, id int64) (out string, err error) {
	defer guard(&err)
	_, r, err := current(h, id)
	if err != nil {
		return "", err
	}
	var o durableOutcome
	o.Divergence = r.Divergence()
	if p := r.Paused(); p != nil {
		o.Paused = &pausedCall{TokenID: p.TokenID(), ID: p.ID, Method: p.Method, Params: p.Params}
	}
	b, err := json.Marshal(o)
	return string(b), err
}

type journalInfo struct {
	Language     string               `json:"language"`
	Code         string               `json:"code"`
	HasSnapshot  bool                 `json:"has_snapshot"`
	FilesDigest  string               `json:"files_digest"`
	End          string               `json:"end"`
	ErrorKind    string               `json:"error_kind"`
	TimeoutS     float64              `json:"timeout"`
	MemoryLimit  int64                `json:"memory_limit"`
	MaxOutput    int64                `json:"max_output"`
	MaxToolCalls int                  `json:"max_tool_calls"`
	DiskQuota    int64                `json:"disk_quota"`
	Pending      json.RawMessage      `json:"pending"`
	Packages     []host.PackageDigest `json:"packages"`
}

// JournalInfo checks a journal made under key (authenticity first) and
// returns what Python needs to replay it (JSON): its language, code,
// limits, whether it holds its start snapshot, how it ended, the pending
// call of a paused run (with its token id) and the Python packages its
// run saw.
func JournalInfo(data, key []byte) (out string, err error) {
	defer guard(&err)
	if len(key) < 16 {
		return "", newError(kindInvalid, "a durable key of %d bytes is too short (at least 16)", len(key))
	}
	j, err := host.DecodeJournal(data, key)
	if err != nil {
		return "", durableErr(err)
	}
	info := journalInfo{Language: j.Input.Language, Code: j.Input.Code, HasSnapshot: j.Snapshot != nil,
		FilesDigest: fmt.Sprintf("%x", j.FilesDigest), End: j.End, ErrorKind: j.ErrorKind,
		TimeoutS: float64(j.Limits.Timeout) / float64(time.Second), MemoryLimit: j.Limits.MemoryLimit,
		MaxOutput: j.Limits.MaxOutput, MaxToolCalls: j.Limits.MaxToolCalls, DiskQuota: j.Limits.DiskQuota,
		Pending: json.RawMessage("null"), Packages: j.Packages}
	if p := j.Pending; p != nil {
		info.Pending, _ = json.Marshal(pausedCall{TokenID: p.TokenID(), ID: p.ID, Method: p.Method, Params: p.Params})
	}
	if info.Packages == nil {
		info.Packages = []host.PackageDigest{}
	}
	b, err := json.Marshal(info)
	return string(b), err
}

// SandboxRestoreJournalStart restores the start snapshot a journal holds
// (an error for a journal that keeps only its digest); it returns a
// status.
func SandboxRestoreJournalStart(h int64, journal []byte) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		j, err := e.sb.DecodeJournal(journal)
		if err != nil {
			return durableErr(err)
		}
		if j.Snapshot == nil {
			return newError(kindRuntime, "this journal keeps only the digest of its start state (files digest %x...); "+
				"restore the snapshot it was recorded from with Sandbox.from_snapshot(...) and call .replay(journal) on that sandbox", j.FilesDigest[:8])
		}
		return durableErr(e.sb.Restore(j.Snapshot))
	})
}
