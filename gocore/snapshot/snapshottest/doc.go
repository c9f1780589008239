// Package snapshottest makes snapshot bytes for tests: record by record
// (Builder), including records no Writer would make, so hostile content
// reaches the checks after authentication, and resealed under a key
// (Reseal) or with an unkeyed trailer (SHA256Reseal).
//
// It frames records itself rather than through gocore/snapshot, so the
// tests of that package check its framing against a second reading of
// the format. It must never be imported by anything but tests.
package snapshottest
