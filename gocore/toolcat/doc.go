// Package toolcat is the tool catalogue: how a script names each of the
// sandbox's tools in every guest, and how tools are found by words. The
// host decides it once, here, and hands it to the guests (the index file
// and a run's input carry each tool's names, wire.ToolInfo.JS, NS and
// Py); the guests' preludes and the shell's tool applet only present it.
//
// # Names
//
// JavaScript: a tool is the global JSName(name), each ".", "/", ":" and
// "-" of its name made "_"; a name with a dot that is neither its first
// nor its last character is also a member of the namespace JSNamespace
// (the part before the first dot, in identifier form), under the rest of
// its name and that rest's identifier form. Python: every dot is a level
// of namespace, each part with "-", ":" and "/" made "_"; PyPath is that
// dotted path, or "" when a part is no Python identifier or is a keyword
// (the tool then has no global; call_tool reaches it). Both forms keep
// the name's length and the places of its dots, so a guest slices the
// name and its forms at the same offsets.
//
// Whether a name is free in a guest (a builtin, the prelude's own global
// or a script's global may own it) is the guest's to see, at run time;
// the first tool of a name keeps it.
//
// # Search
//
// Rank orders tools for a query: a tool matches when every word of the
// query (split on white space, lower-cased) is in its name or its
// description (lower-cased), and scores 3 per word found in its name and 1
// per word found only in its description; ties keep the tools' order.
//
// This package is pure Go with no cgo and no I/O: it never reads files,
// and never decides which calls are allowed (the host's toolMethods and
// the capability policy do).
package toolcat
