// Package conformance is a black-box conformance suite for the STE wire and
// command-line contract (docs/spec/messages.md and docs/spec/cli.md). It builds the ste binary once
// and drives `ste match`, `ste gen` and `ste refdata gen` through os/exec,
// signing its own inbound messages with the public demo-key rule and checking
// every output line against the contract. The adversarial tests (issue 15)
// also run `ste broker` and `ste process` and talk to the broker with
// franz-go (skipped with -short).
//
// The suite is written from the contract alone; see AMBIGUITIES.md in this
// directory for the readings it takes where the contract is not explicit.
//
// Run it with:
//
//	cd /work/main && go test ./conformance/ -count=1
//
// Set STE_CONF_BIN to an already built binary to skip the build step.
package conformance
