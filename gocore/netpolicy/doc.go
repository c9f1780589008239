// Package netpolicy is the floor under the HTTP requests a sandbox makes
// through the host: the network policy (allow rules, secrets, limits)
// parsed from the JSON the Python NetworkPolicy sends, the description of
// a guest's request as a capability call, and the Executor that makes an
// allowed request and hands back a scrubbed response.
//
// A request goes through three steps, each of which can refuse it with a
// *Refusal naming the check (and the rule, secret or field) at fault:
//
//  1. Policy.Prepare checks the request itself (verb, URL form, scheme,
//     host form, port, path, headers, sizes, where placeholders are) and
//     describes it as capability method
//     "http/<VERB>/<host>[:<port>]/<path segments>" with JSON params
//     method, scheme, host, port, path, url, query/<name>,
//     headers/<lower-case name>, json/... (a JSON body up to 1 MiB),
//     form/... (an urlencoded body), body_size. Query and form values
//     that are JSON numbers are numbers; a repeated name is a list.
//  2. Policy.Authorize decides it by the allow rules (deny by default) and
//     spends the matching rule's max_calls. The host may in addition check
//     the same method and params against the sandbox's own capabilities.
//  3. Executor.Do makes it: the resolved address of every connection is
//     checked (the IANA special-purpose ranges, with the IPv4 address
//     inside IPv4-mapped, NAT64 and 6to4 forms) unless allow_private
//     names it; placeholders become secrets only there, only over https,
//     only to the secret's hosts; redirects come back to the caller; the
//     body, time, concurrency and request count are bounded; the response
//     is scrubbed of every secret (raw, base64 and URL-encoded forms).
//
// # Policy JSON
//
//	{
//	  "allow": [                      // rules; a string or an object
//	    "api.github.com",             // any verb, https, any path
//	    "GET https://api.github.com/repos/**",
//	    "GET,HEAD https://*.example.com/docs/**",
//	    {"url": "https://api.stripe.com/v1/refunds", "methods": ["POST"],
//	     "constraints": {"form/amount": "<=5000"},  // or [constraint dicts]
//	     "max_calls": 10, "require_approval": false}
//	  ],
//	  "secrets": {"GITHUB_TOKEN": {"value": "...", "hosts": ["api.github.com"],
//	                               "where": ["header"], "expose": true}},
//	  "inject_headers": {"api.stripe.com": {"Authorization": "Bearer {STRIPE_KEY}"}},
//	  "max_requests": 100, "max_request_bytes": 10485760,
//	  "max_response_bytes": 10485760, "timeout": 30.0, "max_concurrent": 8,
//	  "allow_private": ["127.0.0.1", "10.0.0.0/8", "db.internal"],
//	  "extra_ca_certs": "-----BEGIN CERTIFICATE-----..."   // PEM text or null
//	}
//
// Every field is optional; an unknown field is an error. Rules are
// described at ParseRule; an object rule without "methods" (and without
// verbs in its url) allows GET only, like the Python HttpRule. A rule
// with an explicit path allows only paths matching it ("/" is the root
// alone); without a path it allows every path.
//
// Hosts in rules, secrets' hosts and inject_headers keys are an exact name
// or address, "*" (rules only: any host) or "*.example.com" (any name
// under example.com, at any depth, not example.com itself); they never
// name a port. allow_private entries are addresses, CIDR blocks, or host
// names whose requests may reach any address.
//
// # Secrets
//
// Each secret has a placeholder "amla_secret_<NAME>_<32 hex digits>",
// drawn per policy (Placeholders gives the exposed ones, for the guest's
// environment; SetPlaceholders restores earlier ones). The guest's request
// and everything checked or recorded hold only placeholders; Executor.Do
// puts the values in as the request leaves: in header values (also inside
// "Authorization: Basic" credentials), the query, the path or the body, as
// the secret's "where" allows, only over https and only to its hosts.
// Prepare refuses a placeholder found anywhere else (the host, a header
// name, a place "where" leaves out, http, another host, or any place for
// a secret with expose=false). inject_headers are added on the host side
// and replace the guest's headers of the same name; a "{NAME}" in their
// values is the secret's value, under the same https and hosts rules.
// Every response (body, header names and values) is scrubbed: each
// secret's value, its base64 forms (standard and URL alphabets, padded or
// not, and the part of a longer base64 text that encodes only the value)
// and its URL- and JSON-escaped forms become the placeholder. A
// secret-bearing request whose response arrives in an encoding the host
// cannot decode (anything but gzip, which the host asks for and decodes)
// is refused.
//
// # What it must never do
//
// It must never let a request reach an address the floor refuses, follow
// a redirect, use a proxy, skip TLS verification, put a secret's value
// anywhere its policy does not allow, or hand a secret's value back in a
// response, a header or an error message. It must stay pure Go with no
// import of the host (wasmtime) or of a guest, and never crash or hang on
// hostile input: every request is bounded in size and time.
package netpolicy
