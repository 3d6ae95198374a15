module github.com/oasisprotocol/curve25519-voi

go 1.17

require (
	golang.org/x/crypto v0.0.0-20220321153916-2c7772ba3064
	golang.org/x/sys v0.0.0-20220325203850-36772127a21f
)
