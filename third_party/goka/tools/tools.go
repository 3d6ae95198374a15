// tools.go

//go:build tools

package tools

import _ "go.uber.org/mock/mockgen"
