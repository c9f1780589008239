// Package casefile reads the test-case files of the applets and the shell:
// each case is a command line, its stdin and files, and the expected stdout,
// stderr, exit status and resulting files, so adding a test is adding a few
// lines of data, not a function.
//
// A case file looks like this:
//
//	# Comments start with '#' between cases.
//	=== grep -c counts the matching lines
//	$ grep -c INFO app.log
//	--- file app.log
//	INFO start
//	DEBUG x
//	INFO done
//	--- stdout
//	2
//
// "=== NAME" starts a case. "$ LINE" lines are the command (several make a
// multi-line script). "--- KIND [ARG]" starts a section whose content is the
// lines up to the next header; each line gets its newline and trailing blank
// lines are dropped. A header may end with a Go-quoted string instead, which
// is then the exact content: --- stdout "no newline". Kinds:
//
//	stdin             standard input
//	file PATH         a file created before the run
//	dir PATH          an empty directory created before the run (no content)
//	env NAME=VALUE    an exported variable (no content)
//	stdout, stderr    the expected output; with "~" each content line need
//	                  only occur somewhere in the output (--- stderr ~)
//	exit N            the expected status (no content; default 0)
//	want-file PATH    the expected content of a file after the run
//	no-file PATH      a path that must not exist after the run
//	tools             JSON array of tools: name, description, inputSchema,
//	                  and the canned "result" or "error" of a call
//	calls             the expected tool calls, one "METHOD PARAMS" per line
//	                  with PARAMS as compact JSON with sorted keys
//	not-gnu REASON    the case expects what GNU's tool does not print, on
//	                  purpose (no content); the GNU check skips it
//
// A missing stdout or stderr section expects empty output. A content line
// that would read as a header is escaped with a backslash (\--- , \===);
// a line starting with two backslashes loses one.
package casefile
