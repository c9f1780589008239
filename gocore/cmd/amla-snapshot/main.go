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
