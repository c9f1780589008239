package pycore

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"amlasandbox/gocore/host"
)

// The host's file API (gocore/host/files.go). Paths are sandbox paths;
// errors cross with the kind of the host's FileError (not_found, is_dir,
// not_dir, denied, no_space, not_empty), which Python raises as the
// matching OSError subclass, or invalid (ValueError) and runtime.

// fileCrossing gives a file API error the shape Python receives.
func fileCrossing(err error) error {
	var fe *host.FileError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Kind {
	case host.FileInvalid:
		return newError(kindInvalid, "%s", fe.Msg)
	case host.FileBusy, host.FileFailed:
		return newError(kindRuntime, "%s", fe.Msg)
	}
	return &boundaryError{Kind: errorKind(fe.Kind), Message: fe.Msg}
}

// SandboxReadFile returns the contents of the file at path.
func SandboxReadFile(h int64, path string) (out []byte, err error) {
	defer guard(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return nil, err
	}
	b, err := e.sb.ReadFile(path)
	if err != nil {
		return nil, fileCrossing(err)
	}
	return b, nil
}

// SandboxWriteFile makes the file at path hold data (parents created); it
// returns a status.
func SandboxWriteFile(h int64, path string, data []byte) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		return fileCrossing(e.sb.WriteFile(path, data))
	})
}

// SandboxUpload copies the host file local to path; it returns a status.
func SandboxUpload(h int64, local, path string) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		return fileCrossing(e.sb.Upload(local, path))
	})
}

// SandboxDownload copies the file at path to the host file local; it
// returns a status.
func SandboxDownload(h int64, path, local string) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		return fileCrossing(e.sb.Download(path, local))
	})
}

// SandboxRemoveFile removes the file or directory at path (a non-empty
// directory only when recursive); it returns a status.
func SandboxRemoveFile(h int64, path string, recursive bool) string {
	return status(func() error {
		e, err := sandboxOf(h)
		if err != nil {
			return err
		}
		return fileCrossing(e.sb.RemoveFile(path, recursive))
	})
}

// listEntry is one entry of SandboxListDir's JSON. A name that is not
// UTF-8 (a file put there from outside) comes as name_hex, its bytes, so
// that Python can show it as os.listdir would, rather than as JSON's
// replacement characters.
type listEntry struct {
	Name    string `json:"name,omitempty"`
	NameHex string `json:"name_hex,omitempty"`
	Type    string `json:"type"`
	Size    int64  `json:"size"`
}

// SandboxListDir lists the directory at path as a JSON list of
// {name | name_hex, type, size}.
func SandboxListDir(h int64, path string) (out string, err error) {
	defer guard(&err)
	e, err := sandboxOf(h)
	if err != nil {
		return "", err
	}
	infos, err := e.sb.ListDir(path)
	if err != nil {
		return "", fileCrossing(err)
	}
	ents := make([]listEntry, len(infos))
	for i, fi := range infos {
		ents[i] = listEntry{Type: fi.Type, Size: fi.Size}
		if utf8.ValidString(fi.Name) {
			ents[i].Name = fi.Name
		} else {
			ents[i].NameHex = hex.EncodeToString([]byte(fi.Name))
		}
	}
	b, err := json.Marshal(ents)
	return string(b), err
}
