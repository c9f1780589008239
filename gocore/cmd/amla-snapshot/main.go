// Command amla-snapshot pays a guest's start-up once, at build time: it
// instantiates a reactor guest, runs its one-time set-up (_initialize,
// then amla_init), and writes a module whose instances start in that
// state (gocore/wasmsnap, the Wizer technique). Every run still gets a
// fresh instance; it just does not repeat runtime init, package init or
// (for JavaScript) engine creation and the prelude.
//
// See host.SnapshotGuest for what the instance sees while it sets up.
//
// Usage: amla-snapshot IN.wasm OUT.wasm
package main

import (
	"fmt"
	"os"

	"amlasandbox/gocore/host"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: amla-snapshot IN.wasm OUT.wasm")
		os.Exit(2)
	}
	if err := snapshot(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "amla-snapshot:", err)
		os.Exit(1)
	}
}

func snapshot(in, out string) error {
	wasm, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	snap, err := host.SnapshotGuest(wasm)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, snap, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
