package registry

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/when"
)

// WriteTable writes the entries as ste instances prints them, with how long
// ago each was last seen at now. w should escape terminal controls: an
// entry is written by whoever can write the topic.
func WriteTable(w io.Writer, list []Entry, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGROUPS\tHTTP\tREADY\tHEALTH\tVERSION\tHOST\tPID\tLAST SEEN")
	for _, e := range list {
		seen := when.Human(now.Sub(e.LastSeen).Round(time.Second)) + " ago"
		if e.Stale {
			seen += " (stale)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s\t%d\t%s\n", e.ID, strings.Join(e.Groups, ","), e.HTTP, e.Ready,
			e.Health, e.Version, e.Host, e.PID, seen)
	}
	return tw.Flush()
}
