package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/trust"
)

// Sandbox is what DeleteSandbox removed.
type Sandbox struct {
	Deleted
	// Tables are the instance directories whose tables were removed under
	// the STE home; Busy those kept because their instance runs.
	Tables, Busy []string
}

// DeleteSandbox is ste replay --delete: Delete, then the tables the
// sandbox's instances kept on this machine under home (an instance that
// still runs keeps its own: stop it, then delete again).
func DeleteSandbox(ctx context.Context, dial copier.Dial, ns string, secret *trust.Secret, home string) (Sandbox, error) {
	d, err := Delete(ctx, dial, ns, secret)
	if err != nil {
		return Sandbox{Deleted: d}, err
	}
	s := Sandbox{Deleted: d}
	s.Tables, s.Busy, err = instance.RemoveTables(home, ns)
	return s, err
}

// WriteText says what was deleted of sandbox ns, and what was kept.
func (s Sandbox) WriteText(w io.Writer, ns, home string) {
	fmt.Fprintf(w, "sandbox %s deleted: %d topics, %d consumer groups, the tables of %d instances under %s\n",
		ns, len(s.Topics), len(s.Groups), len(s.Tables), home)
	for _, b := range s.Busy {
		fmt.Fprintf(w, "  kept %s: its instance is running (stop it, then delete again)\n", b)
	}
}

// Report prints a replay's result — and, when ran is not nil, its run to
// lag 0 — as one JSON object or as two lines of text.
func Report(w io.Writer, res Result, ran *Ran, asJSON bool) error {
	out := map[string]any{"from": res.From, "to": res.To, "partitions": res.Partitions, "copied": res.Copied,
		"refdata": res.Refdata, "seconds": round3(res.Seconds), "msgs_per_sec": int64(res.MsgPerSec), "windows": res.Windows}
	if ran != nil {
		out["run_seconds"], out["ready_seconds"] = round3(ran.Seconds), round3(ran.Ready)
	}
	if asJSON {
		return json.NewEncoder(w).Encode(out)
	}
	fmt.Fprintf(w, "replayed %d inbound records of %s into sandbox %s (%d partitions, reference data: %s), copied at %d msg/s\n",
		res.Copied, res.From, res.To, res.Partitions, res.Refdata, int64(res.MsgPerSec))
	if ran == nil {
		_, err := fmt.Fprintf(w, "run its processors with: ste replay … --run, or ste process --namespace %s\n", res.To)
		return err
	}
	windows := fmt.Sprintf("%d windows", res.Windows)
	if res.Windows == 1 {
		windows = "one window"
	}
	_, err := fmt.Fprintf(w, "processed to lag 0 in %.1fs (%s of record time); compare with: ste diff %s %s\n", out["run_seconds"], windows, res.From, res.To)
	return err
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
