package main

import (
	"context"
	"fmt"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/cli"
)

func init() {
	register(cli.Command{Name: "stop", Summary: "stop what STE left running under $STE_HOME (the embedded analytics endpoint, ste-chdb)", Run: stopCmd})
}

// stopCmd ends the processes STE starts detached under $STE_HOME: only the
// embedded analytics endpoint is (the broker and processors of demo and
// bench run inside those commands). It stops by itself when idle, too.
func stopCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("stop", "")
	if err := fs.Read(args); err != nil {
		return err
	}
	home := cli.Home()
	ep, running := embedded.Running(ctx, home)
	if err := embedded.Stop(home); err != nil {
		return err
	}
	if running {
		fmt.Printf("stopped the analytics endpoint ste-chdb (pid %d, data %s)\n", ep.PID, ep.DataDir)
	} else {
		fmt.Printf("nothing running under %s\n", home)
	}
	return nil
}
